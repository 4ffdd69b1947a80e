import { createArtifactUrlSigner, notFound } from '@botfleet/core';
import {
  findFailureScreenshotId,
  findStepOutput,
  listArtifacts,
  listExecutionLogs,
  listStepOutputs,
} from '@botfleet/db';
import type { ApiDeps } from '../deps';
import { defineRoute, type Route } from '../http/route';
import { toArtifactView } from '../views/artifact.view';
import { toListView } from '../views/collection.view';
import { toExtractView } from '../views/extract.view';
import { toFailureView } from '../views/failure.view';
import { toLogEntryView } from '../views/log-entry.view';
import { toStepOutputView } from '../views/step-output.view';
import { listOf } from './common.contract';
import {
  ArtifactViewSchema,
  ExtractSchema,
  FailureSchema,
  LogEntrySchema,
  StepOutputSchema,
} from './execution-results.contract';
import { ExecutionParams, StepOutputParams } from './path-params';
import { executionOfCaller, executionWithDataOfCaller } from './resource-loaders';

export function executionResultRoutes(deps: ApiDeps): Route[] {
  const { db } = deps;
  const signer = createArtifactUrlSigner(
    deps.settings.urlSigningKey,
    deps.settings.publicBaseUrl,
    deps.settings.screenshotUrlTtlSeconds,
  );
  const signArtifactUrl = (artifactId: string) => signer.sign(artifactId);

  return [
    defineRoute(
      {
        method: 'get',
        path: '/executions/:executionId/steps',
        operationId: 'listStepOutputs',
        tag: 'Execution results',
        summary: 'All step outputs of an execution, by index',
        permission: 'read',
        params: ExecutionParams,
        load: { execution: executionOfCaller },
        responses: { 200: { description: 'The step outputs', schema: listOf(StepOutputSchema) } },
      },
      async ({ execution }) => {
        const steps = await listStepOutputs(db, execution.id);
        return { status: 200, body: toListView(steps.map((step) => toStepOutputView(step, signArtifactUrl))) };
      },
    ),
    defineRoute(
      {
        method: 'get',
        path: '/executions/:executionId/steps/:index',
        operationId: 'getStepOutput',
        tag: 'Execution results',
        summary: 'The output of the step at a zero-based index',
        permission: 'read',
        params: StepOutputParams,
        load: { execution: executionOfCaller },
        responses: { 200: { description: 'The step output', schema: StepOutputSchema } },
      },
      async ({ execution, params }) => {
        const step = await findStepOutput(db, execution.id, params.index);
        if (!step) throw notFound('Step output');
        return { status: 200, body: toStepOutputView(step, signArtifactUrl) };
      },
    ),
    defineRoute(
      {
        method: 'get',
        path: '/executions/:executionId/extract',
        operationId: 'getExtract',
        tag: 'Execution results',
        summary: 'Extracted data of a completed execution (404 until it completed with data)',
        permission: 'read',
        params: ExecutionParams,
        load: { execution: executionWithDataOfCaller },
        responses: { 200: { description: 'The data', schema: ExtractSchema } },
      },
      async ({ execution }) => {
        if (execution.status !== 'completed' || execution.extractedData === null) throw notFound('Extracted data');
        return { status: 200, body: toExtractView(execution) };
      },
    ),
    defineRoute(
      {
        method: 'get',
        path: '/executions/:executionId/failure',
        operationId: 'getFailure',
        tag: 'Execution results',
        summary: 'Why a failed execution failed, with a signed URL of the screenshot taken then',
        permission: 'read',
        params: ExecutionParams,
        load: { execution: executionOfCaller },
        responses: { 200: { description: 'The failure context', schema: FailureSchema } },
      },
      async ({ execution }) => {
        if (execution.status !== 'failed') throw notFound('Failure');
        const screenshotId = await findFailureScreenshotId(db, execution.id);
        return { status: 200, body: toFailureView(execution, screenshotId ? signArtifactUrl(screenshotId) : null) };
      },
    ),
    defineRoute(
      {
        method: 'get',
        path: '/executions/:executionId/logs',
        operationId: 'listLogs',
        tag: 'Execution results',
        summary: 'Runner, script and system logs of an execution, in order',
        permission: 'read',
        params: ExecutionParams,
        load: { execution: executionOfCaller },
        responses: { 200: { description: 'The log lines', schema: listOf(LogEntrySchema) } },
      },
      async ({ execution }) => {
        const logs = await listExecutionLogs(db, execution.id);
        return { status: 200, body: toListView(logs.map(toLogEntryView)) };
      },
    ),
    defineRoute(
      {
        method: 'get',
        path: '/executions/:executionId/artifacts',
        operationId: 'listArtifacts',
        tag: 'Execution results',
        summary:
          'Files the execution kept (screenshots; downloads with capabilities.downloads), each with a signed URL',
        permission: 'read',
        params: ExecutionParams,
        load: { execution: executionOfCaller },
        responses: { 200: { description: 'The artifacts, oldest first', schema: listOf(ArtifactViewSchema) } },
      },
      async ({ execution }) => {
        const artifacts = await listArtifacts(db, execution.id);
        return {
          status: 200,
          body: toListView(artifacts.map((a) => toArtifactView(a, execution.failedStepIndex, signArtifactUrl))),
        };
      },
    ),
  ];
}
