/** The root of this checkout (tests run from dist/test/...), whatever directory node started in. */
import { fileURLToPath } from 'node:url';

export const CHECKOUT_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
