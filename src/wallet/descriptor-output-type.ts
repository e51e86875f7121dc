/** The wallet output type a descriptor's scripts have, as Core's Descriptor::GetOutputType says. */
import type { Descriptor } from '../script/index.js';
import type { WalletOutputType } from './records.js';

/** Core's GetOutputType of a descriptor (undefined: combo, or a script of no address type). */
export function descriptorOutputType(d: Descriptor): WalletOutputType | undefined {
  switch (d.name) {
    case 'pkh':
      return 'legacy';
    case 'wpkh':
    case 'wsh':
      return 'bech32';
    case 'tr':
    case 'rawtr':
      return 'bech32m';
    case 'sh':
      return d.subArgs[0]?.name === 'wpkh' || d.subArgs[0]?.name === 'wsh' ? 'p2sh-segwit' : 'legacy';
    case 'addr':
    case 'raw': {
      const script = d.expand(0)?.[0];
      if (!script) return undefined;
      if (script.length === 25 && script[0] === 0x76) return 'legacy';
      if (script.length === 23 && script[0] === 0xa9) return 'legacy';
      if (script[0] === 0x00 && (script.length === 22 || script.length === 34)) return 'bech32';
      if (script.length === 34 && script[0] === 0x51) return 'bech32m';
      return undefined;
    }
    default:
      return undefined;
  }
}
