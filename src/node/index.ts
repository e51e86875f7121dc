/**
 * node: the coordinator process — configuration (command line, bitcoin.conf, typed
 * accessors), data directory, debug.log, the RPC cookie, HTTP front-end management, and
 * the ordered NodeService list that other folders plug their services into.
 */
export { NodeConfig, InitError, loadConfig, defaultDataDir } from './config.js';
export { Args } from './args.js';
export { NodeClock } from './clock.js';
export { Logger } from './logging.js';
export { LOG_CATEGORIES, type LogLevel } from './log-categories.js';
export { nodeServices, testWarmupService, type NodeContext, type NodeService } from './services.js';
export { PRODUCT_NAME } from './coordinator.js';
export { main, runFromCommandLine } from './main.js';
