/**
 * A ChatModel decorator that times every request (retries included, as the run experiences them) and
 * counts failures by kind. The composition root wraps the real client in it; the engine cannot tell.
 */
import type { ChatModel, ModelReply, ModelRequest } from '../agent/types.js';
import { ModelError } from '../errors.js';

/** Where the measurements go (`Metrics` fits). */
export interface ModelObserver {
  observeModelRequest(seconds: number, errorKind?: string): void;
}

/** `model`, measured: same name and key (so what the engine learns per server is unchanged). */
export function measureModel(model: ChatModel, observer: ModelObserver, now: () => number = performance.now.bind(performance)): ChatModel {
  return {
    get model() {
      return model.model;
    },
    get key() {
      return model.key;
    },
    complete(request: ModelRequest): Promise<ModelReply> {
      const started = now();
      return model.complete(request).then(
        (reply) => {
          observer.observeModelRequest((now() - started) / 1000);
          return reply;
        },
        (error: unknown) => {
          observer.observeModelRequest((now() - started) / 1000, error instanceof ModelError ? error.kind : 'other');
          throw error;
        },
      );
    },
  };
}
