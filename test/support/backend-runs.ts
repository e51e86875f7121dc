/** Runs code under one signature backend, then puts the previous one back. */
import { chooseSignatureBackend, chosenSignatureBackend, setSignatureBackend, signatureBackend, type SignatureBackendChoice } from '../../src/script/index.js';

export function runUnderBackend<T>(choice: SignatureBackendChoice, fn: () => T): T {
  const previous = signatureBackend();
  const previousChoice = chosenSignatureBackend();
  chooseSignatureBackend(choice);
  try {
    return fn();
  } finally {
    chooseSignatureBackend(previousChoice);
    setSignatureBackend(previous);
  }
}

