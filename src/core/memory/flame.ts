/** The allocation profile as a flamegraph payload: the same renderer, widths in bytes, per request when known. */
import { buildFlamePayload } from '../flame/payload';
import type { FlamePayload } from '../../shared/flame/payload';
import type { ProfileModel } from '../profile/types';

export function allocationFlamePayload(model: ProfileModel, options: { title: string; requests?: number | null }): FlamePayload {
  const payload = buildFlamePayload(model, { title: options.title });
  payload.meta.unit = 'bytes';
  if (options.requests) payload.meta.requests = options.requests;
  return payload;
}
