import { z } from 'zod';

// Ids are opaque: any short string is accepted and simply not found when it names nothing.
const Id = z.string().min(1).max(100);

export const BotParams = z.strictObject({ botId: Id });
export const ExecutionParams = z.strictObject({ executionId: Id });
export const ApiKeyParams = z.strictObject({ keyId: Id });
