/**
 * The routes an app registered on the server that just started listening, for the request-path offer:
 * Express (4, 5, and NestJS on Express) from its router, Fastify (4, 5) from the `fastify.initialization`
 * diagnostics channel it publishes its instances on and its own `printRoutes()`. Read inside the app by
 * the preload: read-only, bounded, and silent on anything it does not recognise. Self-contained (bundled
 * into the preload): Node built-ins only.
 */
import * as diagnostics from 'node:diagnostics_channel';
import { EventEmitter } from 'node:events';
import type * as net from 'node:net';
import { readExpressRoutes, type RegisteredRoute, type RouteTable } from './expressRoutes';

const MAX_INSTANCES = 16;
const MAX_ROUTES = 200;
const fastifies: WeakRef<object>[] = [];

/**
 * Subscribes to Fastify's instance announcements (Fastify ≥ 4.10 publishes each instance it creates
 * when the channel has a subscriber). Nothing is added to the app's objects. Call once, early.
 */
export function watchAppRoutes(): void {
  diagnostics.subscribe('fastify.initialization', (message) => {
    const instance = (message as { fastify?: unknown } | undefined)?.fastify;
    if (typeof instance === 'object' && instance !== null && fastifies.length < MAX_INSTANCES) fastifies.push(new WeakRef(instance));
  });
}

/** The route table of `server`: Express's (its request listener), else Fastify's (the instance that owns it). */
export function readAppRoutes(server: net.Server): RouteTable | undefined {
  const express = readExpressRoutes(EventEmitter.prototype.listeners.call(server, 'request'));
  if (express) return express;
  for (const ref of fastifies) {
    const instance = ref.deref();
    if (!instance) continue;
    const owned = Object.getOwnPropertyDescriptor(instance, 'server');
    const print = (instance as { printRoutes?: unknown }).printRoutes;
    if (owned?.value !== server || typeof print !== 'function') continue;
    const text = print.call(instance, { commonPrefix: false });
    return typeof text === 'string' ? parseFastifyRoutes(text) : undefined;
  }
  return undefined;
}

/**
 * Fastify's `printRoutes({ commonPrefix: false })` tree back to routes:
 * `├── /api/stores (GET, HEAD, POST)` / `│   └── /:id (GET, HEAD)` → GET /api/stores, …, GET /api/stores/:id.
 * Four columns per level; a node's path is its ancestors' segments joined.
 */
export function parseFastifyRoutes(text: string): RouteTable {
  const table: RouteTable = { framework: 'fastify', routes: [], unknownPrefix: 0, truncated: false };
  const stack: string[] = [];
  for (const line of text.split('\n')) {
    const m = /^((?:│ {3}| {4})*)(?:├── |└── )(\S+)(?: \(([A-Z, ]+)\))?/.exec(line);
    if (!m) continue;
    const depth = [...m[1]].length / 4;
    stack.length = depth;
    stack.push(m[2]);
    const path = stack.join('').replace(/\/{2,}/g, '/');
    for (const method of (m[3] ?? '').split(',').map((x) => x.trim()).filter(Boolean)) {
      if (table.routes.length >= MAX_ROUTES) { table.truncated = true; return table; }
      table.routes.push({ method, path } satisfies RegisteredRoute);
    }
  }
  return table;
}
