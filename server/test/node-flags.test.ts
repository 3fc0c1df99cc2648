import { describe, expect, it } from 'vitest';
import { asyncContextFrameFlags, PRODUCTION_NODE_FLAGS } from '../src/node-flags.js';

describe('the production Node flags', () => {
  it('turn on async context frames only where Node has them and they are not yet the default', () => {
    expect(asyncContextFrameFlags('20.20.2')).toEqual([]);
    expect(asyncContextFrameFlags('22.6.0')).toEqual([]);
    expect(asyncContextFrameFlags('22.23.3')).toEqual(['--experimental-async-context-frame']);
    expect(asyncContextFrameFlags('23.1.0')).toEqual(['--experimental-async-context-frame']);
    expect(asyncContextFrameFlags('24.0.0')).toEqual([]);
  });

  it('are the flags these tests run with, so the tests see production’s async-context mode', () => {
    for (const flag of PRODUCTION_NODE_FLAGS.filter((flag) => flag.startsWith('--experimental-async-context-frame'))) {
      expect(process.execArgv).toContain(flag);
    }
    expect(PRODUCTION_NODE_FLAGS).toContain('--max-old-space-size=512');
  });
});
