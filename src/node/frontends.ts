/**
 * The HTTP front-end processes: spawns K of them with a private pipe (fd 3) for IPC
 * frames, answers their forwarded calls through the RPC server, lists their running long
 * polls among its active commands, pushes warm-up, tip and log-category changes, restarts
 * one that dies (logged), and stops them at shutdown.
 * Their stdout/stderr go to debug.log, never to the node's own stderr.
 */
import type { ChildProcess } from 'node:child_process';
import * as readline from 'node:readline';
import type { Duplex } from 'node:stream';
import { IpcChannel, type FrontendSettings, type TipEvent, type ToCoordinator, type ToFrontend } from '../ipc/index.js';
import { RPC_INTERNAL_ERROR, writeJson, type RpcServer } from '../rpc/index.js';
import { spawnFrontendProcess, takeSpareFrontend } from './frontend-spares.js';
import type { Logger } from './logging.js';

/** A front-end that dies this soon after starting, twice running, is restarted after a pause of this length. */
const CRASH_LOOP_MS = 2000;
const STOP_TIMEOUT_MS = 10_000;

export class FrontendStartError extends Error {
  override readonly name = 'FrontendStartError';
}

interface Frontend {
  readonly index: number;
  child: ChildProcess;
  channel: IpcChannel<ToCoordinator, ToFrontend>;
  startedAt: number;
  exited: Promise<void>;
  /** Its long polls now running, listed by getrpcinfo: id → the function that unlists it. */
  readonly running: Map<number, () => void>;
}

export interface FrontendPoolOptions {
  readonly count: number;
  /** Settings for front-end `index`, built fresh at each (re)start. */
  settings(index: number): FrontendSettings;
  readonly server: RpcServer;
  readonly log: Logger;
}

export class FrontendPool {
  private readonly frontends: Frontend[] = [];
  /**
   * Front-ends spawned and not yet in `frontends`: broadcasts reach them too, after their
   * settings, so one that starts while events flow (push events) misses none.
   */
  private readonly starting = new Set<Frontend>();
  private stopping = false;
  /** Per front-end: how many times in a row it died soon after starting. */
  private readonly quickDeaths: number[] = [];
  /** Calls being executed for front-ends; shutdown waits for them so replies go out. */
  private inflight = 0;

  constructor(private readonly opts: FrontendPoolOptions) {}

  get callsInFlight(): number {
    return this.inflight;
  }

  /**
   * Starts every front-end and waits until each has bound its addresses. They start
   * together: each loads its modules and binds on its own, so K front-ends take about the
   * time of one (one at a time, two took 1.3 s of a node's start). If any fails, the others
   * are stopped and the first failure is thrown.
   */
  async start(): Promise<void> {
    const results = await Promise.allSettled(Array.from({ length: this.opts.count }, (_, i) => this.spawn(i)));
    const started = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    const failure = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failure) {
      // No restarts for these: the node is failing to start.
      this.stopping = true;
      for (const fe of started) fe.child.kill('SIGKILL');
      await Promise.all(started.map((fe) => fe.exited));
      throw failure.reason;
    }
    this.frontends.push(...started);
    for (const fe of started) this.starting.delete(fe);
  }

  broadcast(message: ToFrontend): void {
    for (const fe of this.frontends) fe.channel.send(message);
    for (const fe of this.starting) fe.channel.send(message);
  }

  setWarmup(status: string | null): void {
    this.broadcast({ t: 'warmup', status });
  }

  notifyTip(tip: TipEvent): void {
    this.broadcast({ t: 'tip', tip });
  }

  /** Pids of the running front-ends (tests kill one to watch the restart). */
  pids(): number[] {
    return this.frontends.map((fe) => fe.child.pid ?? -1);
  }

  async stop(): Promise<void> {
    this.stopping = true;
    await Promise.all(
      this.frontends.map(async (fe) => {
        fe.channel.send({ t: 'shutdown' });
        const timer = setTimeout(() => fe.child.kill('SIGKILL'), STOP_TIMEOUT_MS);
        await fe.exited;
        clearTimeout(timer);
      }),
    );
  }

  private spawn(index: number): Promise<Frontend> {
    const log = this.opts.log;
    const thread = `http.${index}`;
    // A spare the launcher started is already loading its modules.
    const child = takeSpareFrontend() ?? spawnFrontendProcess();
    for (const [name, stream] of [
      ['stdout', child.stdout],
      ['stderr', child.stderr],
    ] as const) {
      if (stream) readline.createInterface({ input: stream }).on('line', (line) => log.info(`HTTP front-end ${index} ${name}: ${line}`, thread));
    }
    let resolveExit!: () => void;
    const exited = new Promise<void>((resolve) => (resolveExit = resolve));

    return new Promise<Frontend>((resolve, reject) => {
      let ready = false;
      const fe: Frontend = {
        index,
        child,
        startedAt: Date.now(),
        exited,
        running: new Map(),
        channel: new IpcChannel<ToCoordinator, ToFrontend>(
          child.stdio[3] as Duplex,
          (msg) => {
            if (msg.t === 'listening') {
              for (const b of msg.bound) log.info(`Binding RPC on address ${b.host} port ${b.port}`, thread);
              for (const f of msg.failed) log.info(`Binding RPC on address ${f.host} port ${f.port} failed.`, thread);
              if (msg.bound.length === 0) {
                log.error('Unable to bind any endpoint for RPC server', thread);
                child.kill('SIGKILL');
                reject(new FrontendStartError('Unable to bind any endpoint for RPC server'));
                return;
              }
              ready = true;
              resolve(fe);
            } else {
              this.onMessage(fe, msg);
            }
          },
          () => undefined,
        ),
      };
      this.starting.add(fe);
      child.on('exit', (code, signal) => {
        this.starting.delete(fe);
        resolveExit();
        fe.channel.close();
        // Its long polls ended with it.
        for (const unlist of fe.running.values()) unlist();
        fe.running.clear();
        if (!ready) {
          reject(new FrontendStartError(`HTTP front-end ${index} exited during start-up (${signal ?? `code ${code}`})`));
          return;
        }
        if (this.stopping) return;
        log.warning(`HTTP front-end ${index} (pid ${child.pid}) exited (${signal ?? `code ${code}`}); restarting it`, thread);
        // Restart at once, unless it keeps dying right after starting.
        const quick = Date.now() - fe.startedAt < CRASH_LOOP_MS;
        this.quickDeaths[index] = quick ? (this.quickDeaths[index] ?? 0) + 1 : 0;
        setTimeout(() => this.restart(index), this.quickDeaths[index]! >= 2 ? CRASH_LOOP_MS : 0);
      });
      fe.channel.send({ t: 'settings', settings: this.opts.settings(index) });
    });
  }

  private restart(index: number): void {
    if (this.stopping) return;
    this.spawn(index).then(
      (fe) => {
        if (this.stopping) {
          fe.channel.send({ t: 'shutdown' });
          return;
        }
        this.frontends[index] = fe;
        this.starting.delete(fe);
        this.opts.log.info(`HTTP front-end ${index} restarted (pid ${fe.child.pid})`, `http.${index}`);
      },
      (err: Error) => {
        this.opts.log.error(`HTTP front-end ${index} could not be restarted: ${err.message}; trying again`, `http.${index}`);
        setTimeout(() => this.restart(index), CRASH_LOOP_MS);
      },
    );
  }

  private onMessage(fe: Frontend, msg: ToCoordinator): void {
    const thread = `http.${fe.index}`;
    switch (msg.t) {
      case 'call':
        this.inflight++;
        void this.opts.server
          .execute({ method: msg.method, params: msg.params, user: msg.user, wallet: msg.wallet ?? undefined, spelled: msg.spelled })
          .then((outcome) => {
            if ('error' in outcome) return fe.channel.send({ t: 'reply', id: msg.id, error: outcome.error });
            let json: string;
            try {
              json = writeJson(outcome.result);
            } catch (err) {
              return fe.channel.send({ t: 'reply', id: msg.id, error: { code: RPC_INTERNAL_ERROR, message: (err as Error).message } });
            }
            return fe.channel.send({ t: 'reply', id: msg.id, result: json });
          })
          .finally(() => this.inflight--);
        return;
      case 'running':
        fe.running.set(msg.id, this.opts.server.trackCommand(msg.method));
        return;
      case 'finished':
        fe.running.get(msg.id)?.();
        fe.running.delete(msg.id);
        return;
      case 'log':
        this.opts.log.log(msg.category ?? undefined, msg.level, msg.msg, thread);
        return;
      case 'fatal':
        this.opts.log.error(`HTTP front-end ${fe.index}: ${msg.message}`, thread);
        return;
      case 'listening':
        return;
    }
  }
}
