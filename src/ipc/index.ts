/**
 * ipc: the coordinator ⇄ HTTP front-end protocol — length-prefixed msgpackr frames over
 * the pipe a front-end process is spawned with, the message types, and a channel.
 */
export * from './frame.js';
export * from './messages.js';
export * from './channel.js';
