// Where a subscription's events go once its protocol has started it: straight to the
// connection's socket, as that protocol's data messages. The answer's JSON is made once per
// event, however many subscribers it goes to; each message is the subscription's prefix (its
// type and id, made once) and that JSON.

import type { Socket } from 'node:net';
import type { FormattedExecutionResult } from 'graphql';
import type { WebSocket } from 'ws';
import type { EventSink } from './stream.js';

/**
 * Unsent bytes above which a subscription's events queue in its stream rather than go to the
 * socket: below it a subscriber keeps up; a subscriber whose queue fills up is too slow.
 */
export const HIGH_WATER_BYTES = 64 * 1024;

/**
 * An event's payload as sent: `{"data":…}`, made once per answer (the hub hands the
 * subscribers of alike answers the same data object).
 */
const payloadTexts = new WeakMap<object, string>();

function payloadText(result: FormattedExecutionResult): string {
  const { data } = result;
  if (result.errors || result.extensions || data === null || data === undefined) return JSON.stringify(result);
  let text = payloadTexts.get(data);
  if (text === undefined) {
    text = JSON.stringify(result);
    payloadTexts.set(data, text);
  }
  return text;
}

/**
 * The sinks of one connection, by message prefix (the JSON of a data message up to its
 * payload: `{"id":"1","type":"next","payload":`). A sink is ready while the connection's unsent
 * data is under HIGH_WATER_BYTES; those waiting are told at the TCP socket's next drain (its
 * own high-water mark is lower, so a drain follows) or when the connection closes. `hold` is
 * called before each write (see DeliveryBatch.hold).
 */
export function socketSinks(socket: WebSocket, raw: Socket, hold: () => void): (prefix: string) => EventSink {
  let waiting: (() => void)[] = [];
  const ready = () => {
    const told = waiting;
    waiting = [];
    for (const then of told) then();
  };
  raw.on('drain', ready);
  socket.once('close', ready);
  return (prefix) => ({
    ready: () => socket.bufferedAmount <= HIGH_WATER_BYTES,
    write: (result) => {
      if (socket.readyState !== socket.OPEN) return;
      hold();
      socket.send(`${prefix}${payloadText(result)}}`);
    },
    whenReady: (then) => {
      if (socket.readyState === socket.OPEN) waiting.push(then);
    },
  });
}
