/**
 * The allocation profile as a flamegraph payload: the same renderer, widths in bytes, per request when
 * known. With its attribution, bytes placed on an inlined callee are drawn as that callee's inlined frame.
 */
import { buildFlamePayload } from '../flame/payload';
import type { InlineSource } from '../flame/inlined';
import type { FlamePayload } from '../../shared/flame/payload';
import type { ProfileModel } from '../profile/types';

export function allocationFlamePayload(model: ProfileModel, options: { title: string; requests?: number | null; attribution?: InlineSource }): FlamePayload {
  const payload = buildFlamePayload(model, { title: options.title, attribution: options.attribution });
  payload.meta.unit = 'bytes';
  if (options.requests) payload.meta.requests = options.requests;
  return payload;
}
