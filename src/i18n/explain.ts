// Provider failures in plain words: which model, which key, what to do next. Shared by the REPL
// and headless mode; words come from the catalogue.

import type { ModelConfig, ProviderError } from '../types.js';
import { t, type MessageKey } from './index.js';

/** A provider failure in plain words: which model, which key, what to do next. */
export function explainError(error: ProviderError, model: ModelConfig): string {
  const keySource = model.apiKeyEnv
    ? t('key.env', { name: model.apiKeyEnv })
    : model.apiKey
      ? t('key.file', { name: model.name })
      : t('key.none', { name: model.name });
  return t(`err.${error.kind}` as MessageKey, {
    model: model.name,
    id: model.model,
    status: error.status ?? '-',
    msg: error.message,
    url: model.baseURL ?? (model.provider === 'anthropic' ? 'https://api.anthropic.com' : 'https://api.openai.com/v1'),
    keySource,
  });
}
