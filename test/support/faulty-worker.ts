/**
 * A verify worker that misbehaves on request, for tests that the pool survives its
 * workers: fault bits in any item's flags select the fault; without one it is the real worker.
 * The fault bits lie above every real VerifyFlags bit.
 */
import verifyTask from '../../workers/verify-worker.js';
import { decodeTask } from '../../workers/message.js';
import type { ScriptCheckResult } from '../../workers/types.js';

export const FAULT_THROW = 1 << 30;
export const FAULT_EXIT = 1 << 29;
export const FAULT_HANG = 1 << 28;
export const FAULT_GARBAGE = 1 << 27;

export default function faultyTask(buffer: ArrayBuffer): ScriptCheckResult | Promise<never> | string {
  const flags = decodeTask(buffer).reduce((all, item) => all | item.flags, 0);
  if (flags & FAULT_THROW) throw new Error('deliberate worker fault');
  if (flags & FAULT_EXIT) process.exit(3);
  if (flags & FAULT_HANG) return new Promise<never>(() => {});
  if (flags & FAULT_GARBAGE) return 'not a verdict';
  return verifyTask(buffer);
}
