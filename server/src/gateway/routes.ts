// The gateway's own routes: uploads, a file the caller references in later calls' `files`. Both
// paths hang off a Dify client's base URL: `file-upload/`, the first, and Dify's `files/upload`
// (multipart "file" and "user"), so Dify clients work unmodified. The paid calls have a door per
// caller protocol (dify/, embed/, openai/), each through door-service.ts.

import multipart from '@fastify/multipart';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ErrorResponse, SlugParams, UploadedFile } from '@tollbooth/contract';
import { ALLOWED_UPLOADS, MAX_UPLOAD_BYTES, malformedMultipart, refuseUnreadableMultipartType } from './files.ts';
import type { GatewayService } from './service.ts';

export const gatewayRoutes: FastifyPluginAsyncTypebox<{ gateway: GatewayService }> = async (app, { gateway }) => {
  // The multipart parser (and its hooks) for these routes only: the calls take JSON.
  await app.register(multipart, { limits: { fileSize: MAX_UPLOAD_BYTES, files: 1, fields: 10 } });

  for (const uploadPath of ['/api/app/:slug/file-upload/', '/api/app/:slug/files/upload'] as const)
    app.post(
      uploadPath,
      {
        schema: {
          tags: ['gateway'],
          summary: uploadPath.endsWith('files/upload') ? "Upload a file (Dify's files/upload)" : 'Upload a file to reference in a call',
          description: `multipart/form-data with a "file" field, at most 15 MB (413 above), of type ${Object.keys(ALLOWED_UPLOADS).join(', ')} (415 otherwise). Reference it in a call as files: [{type: "image", transfer_method: "local_file", upload_file_id}]; images go to vision-capable models.`,
          security: [{ bearer: [] }],
          consumes: ['multipart/form-data'],
          params: SlugParams,
          response: {
            201: UploadedFile,
            400: ErrorResponse,
            401: ErrorResponse,
            403: ErrorResponse,
            404: ErrorResponse,
            413: ErrorResponse,
            415: ErrorResponse,
          },
        },
        onRequest: refuseUnreadableMultipartType,
        preHandler: app.authenticateCaller,
      },
      async (request, reply) => {
        const uploaded = await gateway.upload(request.params.slug, request.auth, {
          isMultipart: request.isMultipart(),
          file: () =>
            request.file().catch((error: unknown) => {
              throw malformedMultipart(error);
            }),
        });
        return reply.status(201).send(uploaded);
      },
    );
};
