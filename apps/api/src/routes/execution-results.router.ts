import { FailureSchema, listOf, LogEntrySchema, notFound, StepOutputSchema } from '@botfleet/core';
import { findFailureScreenshotId, findStepOutput, listExecutionLogs, listStepOutputs, type StepOutput } from '@botfleet/db';
import { z } from 'zod';
import type { ApiDeps } from '../deps';
import { defineRoute, type Route } from '../http/route';
import { createArtifactUrlSigner } from '../services/artifact-url';
import { requireExecution } from '../services/find-execution';
import { toLogEntry, toStepOutputView } from '../views/execution.view';
import { ExecutionParams } from './path-params';

const StepParams = ExecutionParams.extend({ index: z.coerce.number().int().min(0).max(100_000) });
const ExtractSchema = z.object({ data: z.unknown() });

export function executionResultRoutes(deps: ApiDeps): Route[] {
  const { db } = deps;
  const signer = createArtifactUrlSigner(deps.settings.urlSigningKey, deps.settings.publicBaseUrl, deps.settings.screenshotUrlTtlSeconds);

  /** A screenshot step's data names its artifact; readers get a signed URL beside it. */
  const stepView = (step: StepOutput) => {
    const data = step.data as { artifactId?: unknown } | null;
    if (data && typeof data === 'object' && typeof data.artifactId === 'string') {
      return toStepOutputView(step, { ...data, screenshotUrl: signer.sign(data.artifactId) });
    }
    return toStepOutputView(step);
  };

  return [
    defineRoute(
      {
        method: 'get',
        path: '/executions/:executionId/steps',
        tag: 'Execution results',
        summary: 'All step outputs of an execution, by index',
        permission: 'read',
        params: ExecutionParams,
        responses: { 200: { description: 'The step outputs', schema: listOf(StepOutputSchema) } },
      },
      async ({ auth, params }) => {
        await requireExecution(db, auth.organizationId, params.executionId);
        const steps = await listStepOutputs(db, params.executionId);
        return { status: 200, body: { data: steps.map(stepView) } };
      },
    ),
    defineRoute(
      {
        method: 'get',
        path: '/executions/:executionId/steps/:index',
        tag: 'Execution results',
        summary: 'The output of the step at a zero-based index',
        permission: 'read',
        params: StepParams,
        responses: { 200: { description: 'The step output', schema: StepOutputSchema } },
      },
      async ({ auth, params }) => {
        await requireExecution(db, auth.organizationId, params.executionId);
        const step = await findStepOutput(db, params.executionId, params.index);
        if (!step) throw notFound('Step output');
        return { status: 200, body: stepView(step) };
      },
    ),
    defineRoute(
      {
        method: 'get',
        path: '/executions/:executionId/extract',
        tag: 'Execution results',
        summary: 'Extracted data of a completed execution (404 until it completed with data)',
        permission: 'read',
        params: ExecutionParams,
        responses: { 200: { description: 'The data', schema: ExtractSchema } },
      },
      async ({ auth, params }) => {
        const execution = await requireExecution(db, auth.organizationId, params.executionId);
        if (execution.status !== 'completed' || execution.extractedData === null) throw notFound('Extracted data');
        return { status: 200, body: { data: execution.extractedData } };
      },
    ),
    defineRoute(
      {
        method: 'get',
        path: '/executions/:executionId/failure',
        tag: 'Execution results',
        summary: 'Why a failed execution failed, with a signed URL of the screenshot taken then',
        permission: 'read',
        params: ExecutionParams,
        responses: { 200: { description: 'The failure context', schema: FailureSchema } },
      },
      async ({ auth, params }) => {
        const execution = await requireExecution(db, auth.organizationId, params.executionId);
        if (execution.status !== 'failed') throw notFound('Failure');
        const screenshotId = await findFailureScreenshotId(db, execution.id);
        return {
          status: 200,
          body: { error: execution.error ?? 'Unknown error', screenshotUrl: screenshotId ? signer.sign(screenshotId) : null, stepIndex: execution.failedStepIndex },
        };
      },
    ),
    defineRoute(
      {
        method: 'get',
        path: '/executions/:executionId/logs',
        tag: 'Execution results',
        summary: 'Runner, script and system logs of an execution, in order',
        permission: 'read',
        params: ExecutionParams,
        responses: { 200: { description: 'The log lines', schema: listOf(LogEntrySchema) } },
      },
      async ({ auth, params }) => {
        await requireExecution(db, auth.organizationId, params.executionId);
        const logs = await listExecutionLogs(db, params.executionId);
        return { status: 200, body: { data: logs.map(toLogEntry) } };
      },
    ),
  ];
}
