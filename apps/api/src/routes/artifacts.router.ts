import { AppError, ARTIFACT_CONTENT_TYPES, createArtifactUrlSigner, notFound } from '@botfleet/core';
import { ArtifactContentMissing, createPostgresArtifactStore, openArtifactContent } from '@botfleet/artifacts';
import { findArtifact } from '@botfleet/db';
import { pipeline } from 'node:stream/promises';
import type { ApiDeps } from '../deps';
import { defineRoute, type Route } from '../http/route';
import { ArtifactSignatureQuerySchema } from '../contracts/artifacts.contract';
import { ArtifactParams } from '../contracts/path-params';

/** Every content type an artifact is served with, each once. */
const ARTIFACT_MEDIA_TYPES = [...new Set(Object.values(ARTIFACT_CONTENT_TYPES))] as [string, ...string[]];

export function artifactRoutes(deps: ApiDeps): Route[] {
  const signer = createArtifactUrlSigner(
    deps.settings.urlSigningKey,
    deps.settings.publicBaseUrl,
    deps.settings.screenshotUrlTtlSeconds,
  );
  const store = deps.artifactStore ?? createPostgresArtifactStore();
  return [
    defineRoute(
      {
        method: 'get',
        path: '/artifacts/:artifactId',
        operationId: 'getArtifact',
        tag: 'Execution results',
        summary: 'Download an artifact (a screenshot, a kept download) through a signed, expiring URL; no API key',
        permission: null,
        params: ArtifactParams,
        query: ArtifactSignatureQuerySchema,
        responses: {
          200: {
            description:
              'The file, with its kind’s content type: image/png (screenshots), application/zip (a trace), ' +
              'application/json (a HAR), application/octet-stream (a download, sent as an attachment)',
            mediaType: ARTIFACT_MEDIA_TYPES[0],
            alsoMediaTypes: ARTIFACT_MEDIA_TYPES.slice(1),
          },
          403: { description: 'The signature is wrong or expired' },
        },
      },
      async ({ params, query, res }) => {
        if (!signer.verify(params.artifactId, query.expires, query.signature)) {
          throw new AppError('forbidden', 'Invalid or expired signature');
        }
        const artifact = await findArtifact(deps.db, params.artifactId);
        if (!artifact) throw notFound('Artifact');
        // Opened before anything is sent, so a store that cannot serve it still gets the envelope.
        // A sealed artifact (a run that held secret values) is opened with SECRETS_KEY as it streams.
        const content = await openArtifactContent(store, deps.secretBox, artifact).catch((error: unknown) => {
          if (error instanceof ArtifactContentMissing) throw notFound('Artifact');
          throw error;
        });
        res.setHeader('Content-Type', artifact.contentType);
        // A download is whatever a page chose to serve: it is saved, never rendered on the API's
        // origin (nor sniffed into HTML, nor allowed to run anything if a browser tried).
        if (artifact.kind === 'download') res.setHeader('Content-Disposition', 'attachment');
        res.setHeader('X-Content-Type-Options', 'nosniff');
        res.setHeader('Content-Security-Policy', "sandbox; default-src 'none'");
        res.setHeader('Cache-Control', 'private, max-age=300');
        // A sealed artifact's row keeps its plain size: what is sent.
        res.setHeader(
          'Content-Length',
          String(artifact.sealed ? artifact.bytes : (artifact.data?.length ?? artifact.bytes)),
        );
        res.status(200);
        // Streamed from the store (a trace in S3 is never whole in memory). Past the headers an
        // error can only cut the response short, which the client sees as a short body.
        await pipeline(content, res).catch((error: unknown) => {
          deps.logger.warn(
            { err: error instanceof Error ? error.message : String(error), artifactId: artifact.id },
            'artifact download ended early',
          );
        });
        return { status: 200, handled: true } as const;
      },
    ),
  ];
}
