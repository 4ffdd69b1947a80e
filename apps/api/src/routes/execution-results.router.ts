import { createArtifactUrlSigner, notFound } from '@botfleet/core';
import {
  findFailureScreenshotId,
  findStepOutput,
  listArtifacts,
  listExecutionLogs,
  listStepOutputs,
} from '@botfleet/db';
import type { Response } from 'express';
import type { ApiDeps } from '../deps';
import { defineRoute, type Route } from '../http/route';
import { botRunPages, sendExport, singleRunPages, type ExportRequest } from '../services/results-export';
import { toArtifactView } from '../views/artifact.view';
import { toListView } from '../views/collection.view';
import { toExtractView } from '../views/extract.view';
import { toFailureView } from '../views/failure.view';
import { toLogEntryView } from '../views/log-entry.view';
import { toStepOutputView } from '../views/step-output.view';
import { listOf } from '../contracts/common.contract';
import {
  ArtifactViewSchema,
  ExtractSchema,
  FailureSchema,
  LogEntrySchema,
  StepOutputSchema,
} from '../contracts/execution-results.contract';
import { BotParams, ExecutionParams, StepOutputParams } from '../contracts/path-params';
import { botOfCaller, executionOfCaller, executionWithDataOfCaller } from './resource-loaders';
import {
  BotResultsQuerySchema,
  EXPORT_MEDIA_TYPES,
  ExtractQuerySchema,
  ResultRecordsSchema,
  type BotResultsQuery,
} from '../contracts/results-export.contract';

export function executionResultRoutes(deps: ApiDeps): Route[] {
  const { db } = deps;
  const signer = createArtifactUrlSigner(
    deps.settings.urlSigningKey,
    deps.settings.publicBaseUrl,
    deps.settings.screenshotUrlTtlSeconds,
  );
  const signArtifactUrl = (artifactId: string) => signer.sign(artifactId);

  /**
   * Answers the runs' records as the query asks (`format`, `itemsPath`, `fields`) with the response
   * written by hand, as both exports (one execution's extract, a bot's results) do.
   */
  async function exportRuns(
    res: Response,
    query: Pick<BotResultsQuery, 'format' | 'itemsPath' | 'fields' | 'csvFormulas'>,
    download: Pick<ExportRequest, 'runs' | 'filename' | 'context'>,
  ) {
    const shape = { itemsPath: query.itemsPath, fields: query.fields };
    const csvFormulas = query.csvFormulas ?? 'neutralise';
    await sendExport(res, { format: query.format, shape, csvFormulas, logger: deps.logger, ...download });
    return { status: 200, handled: true } as const;
  }

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
        description:
          'JSON by default (`{ "data": ... }` as stored). `format=csv` or `format=jsonl` answers the data as ' +
          'records, as a results export does (`itemsPath`, `fields`; see GET /bots/{botId}/results), as a download.',
        permission: 'read',
        params: ExecutionParams,
        query: ExtractQuerySchema,
        load: { execution: executionWithDataOfCaller },
        responses: {
          200: {
            description: 'The data; with `format`, its records as CSV or JSON Lines',
            schema: ExtractSchema,
            alsoMediaTypes: EXPORT_MEDIA_TYPES,
          },
        },
      },
      async ({ execution, query, res }) => {
        if (execution.status !== 'completed' || execution.extractedData === null || !execution.completedAt) {
          throw notFound('Extracted data');
        }
        if (query.format === 'json') return { status: 200, body: toExtractView(execution) };
        return exportRuns(res, query, {
          runs: singleRunPages({ ...execution, completedAt: execution.completedAt }),
          filename: `${execution.id}-extract`,
          context: { executionId: execution.id },
        });
      },
    ),
    defineRoute(
      {
        method: 'get',
        path: '/bots/:botId/results',
        operationId: 'exportBotResults',
        tag: 'Execution results',
        summary: 'The extracted data of the bot’s completed runs, oldest first, streamed as JSON, JSON Lines or CSV',
        description:
          'One record per run (or per item of the array at `itemsPath`): the data object with `executionId` and ' +
          '`completedAt` added. Runs count by `completedAt` within [`from`, `to`), up to when the request ' +
          'arrived; runs that completed without data are left out. CSV (RFC 4180) has a header row and flattens ' +
          'nested fields with dots, arrays by index (`products.0.name`); without `fields` its columns are every ' +
          'name the records have (a first pass reads them; past 2,000 the request answers 400 asking for `fields`). ' +
          'Any size streams in constant memory. See docs/results-export.md.',
        permission: 'read',
        params: BotParams,
        query: BotResultsQuerySchema,
        load: { bot: botOfCaller },
        responses: {
          200: {
            description: 'The records, as a download (Content-Disposition: attachment)',
            schema: ResultRecordsSchema,
            alsoMediaTypes: EXPORT_MEDIA_TYPES,
          },
        },
      },
      async ({ bot, query, res }) => {
        // Runs completing while the export streams are left out, so a CSV's two passes see the same runs.
        const to = new Date(Math.min(query.to?.getTime() ?? Number.POSITIVE_INFINITY, Date.now()));
        return exportRuns(res, query, {
          runs: botRunPages(db, bot.id, { ...(query.from ? { from: query.from } : {}), to }),
          filename: `${bot.id}-results`,
          context: { botId: bot.id },
        });
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
          'Files the execution kept (screenshots; downloads, traces, HARs and step screenshots when its capabilities ask), each with a signed URL',
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
