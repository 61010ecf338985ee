// The package's entry point (`import { createHost } from 'feiyu'`): the host API and the types a
// caller needs, nothing else. The CLI's entry is cli.ts; nothing imports either.

export { createHost, type HostOptions } from './app/library.js';
export type { Host, TaskResult, TaskState, TaskStatus, TaskOptions, SubmitOptions, EventsOptions } from './app/host.js';
export { ConfigError } from './app/config.js';
export { jsonlStore, memoryStore, type SessionStore, type SessionRecord, type FoundSession } from './session/record.js';
export type { AgentEvent, NoticeEvent, NoticeCode, TurnStopReason } from './types/events.js';
export type { Message } from './types/conversation.js';
export type { Approval, AskAnswer, AskRequest, PlanVerdict, PermissionMode, SandboxLevel } from './types/permissions.js';
export type { JsonSchema, ModelConfig, Provider, ProviderEvent, ProviderRequest, Usage } from './types/providers.js';
export type { KeysFile } from './config/keys.js';
