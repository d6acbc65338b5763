import { EventEmitter } from 'node:events';
import type { FastifyReply } from 'fastify';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startUpstreamCall } from '../providers/upstream.ts';
import { watchCaller } from './caller-connection.ts';

/** The part of a reply watchCaller reads: the raw response's 'close' and its state. */
function fakeReply({ destroyed = false } = {}) {
  const raw = Object.assign(new EventEmitter(), { writableFinished: false, destroyed });
  return { reply: { raw } as unknown as FastifyReply, raw };
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('watchCaller: the caller signal of a paid call', () => {
  it('aborts when the connection closes before the answer was written in full, telling each listener once, in order', () => {
    const { reply, raw } = fakeReply();
    const connection = watchCaller(reply);
    const heard: string[] = [];
    const fn = () => heard.push('function');
    const object = { handleEvent: (event: Event) => heard.push(`object ${event.type}`) };
    connection.signal.addEventListener('abort', fn, { once: true });
    connection.signal.addEventListener('abort', object);
    connection.signal.addEventListener('abort', fn);
    expect(connection.signal.aborted).toBe(false);
    expect(connection.signal.reason).toBeUndefined();

    raw.emit('close');
    raw.emit('close');
    expect(heard).toEqual(['function', 'object abort']);
    expect(connection.signal.aborted).toBe(true);
    expect(connection.signal.reason).toBeInstanceOf(DOMException);
    expect((connection.signal.reason as DOMException).name).toBe('AbortError');

    // Like an AbortSignal's: a listener added after the abort is never called.
    const late = vi.fn();
    connection.signal.addEventListener('abort', late);
    connection.signal.abort();
    expect(late).not.toHaveBeenCalled();
  });

  it('does not abort when the connection closes after the answer was written', () => {
    const { reply, raw } = fakeReply();
    const connection = watchCaller(reply);
    const listener = vi.fn();
    connection.signal.addEventListener('abort', listener);
    raw.writableFinished = true;
    raw.emit('close');
    expect(connection.signal.aborted).toBe(false);
    expect(listener).not.toHaveBeenCalled();
  });

  it('is aborted from the start when the connection closed before the route listened', () => {
    const { reply } = fakeReply({ destroyed: true });
    const connection = watchCaller(reply);
    expect(connection.signal.aborted).toBe(true);
    expect(() => startUpstreamCall('Upstream', { signal: connection.signal, timeoutMs: 1000 }).dispose()).not.toThrow();
  });

  it('forgets a removed listener, and release() stops listening to the connection', () => {
    const { reply, raw } = fakeReply();
    const connection = watchCaller(reply);
    const listener = vi.fn();
    connection.signal.addEventListener('abort', listener);
    connection.signal.removeEventListener('abort', listener);
    connection.release();
    expect(raw.listenerCount('close')).toBe(0);
    raw.emit('close');
    expect(connection.signal.aborted).toBe(false);
    connection.signal.abort();
    expect(connection.signal.aborted).toBe(true);
    expect(listener).not.toHaveBeenCalled();
  });

  it('abort() (a Dify stop) aborts the upstream call listening to it', () => {
    const { reply } = fakeReply();
    const connection = watchCaller(reply);
    const call = startUpstreamCall('Upstream', { signal: connection.signal, timeoutMs: 60_000 });
    const told = vi.fn();
    call.onAbort({ handleEvent: told });
    connection.signal.abort();
    expect(call.aborted).toBe(true);
    expect(told).toHaveBeenCalledOnce();
    expect(call.fail(new Error('socket hang up')).name).toBe('AbortError');
    call.dispose();
  });

  it('a listener that throws does not keep the others from hearing the abort; its error is thrown on the next tick', () => {
    const { reply, raw } = fakeReply();
    const connection = watchCaller(reply);
    const ticks: (() => void)[] = [];
    vi.spyOn(process, 'nextTick').mockImplementation(((callback: () => void) => {
      ticks.push(callback);
    }) as typeof process.nextTick);
    const after = vi.fn();
    connection.signal.addEventListener('abort', () => {
      throw new Error('listener failed');
    });
    connection.signal.addEventListener('abort', after);
    raw.emit('close');
    expect(after).toHaveBeenCalledOnce();
    expect(ticks).toHaveLength(1);
    expect(() => ticks[0]!()).toThrow('listener failed');
  });

  it('a disposed upstream call stops listening, so a later abort reaches nobody', () => {
    const { reply } = fakeReply();
    const connection = watchCaller(reply);
    const call = startUpstreamCall('Upstream', { signal: connection.signal, timeoutMs: 60_000 });
    const told = vi.fn();
    call.onAbort({ handleEvent: told });
    call.dispose();
    connection.signal.abort();
    expect(call.aborted).toBe(false);
    expect(told).not.toHaveBeenCalled();
  });
});
