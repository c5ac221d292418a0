import type { FastifyInstance } from 'fastify';
import { route } from '../../../platform/http/route.ts';
import { IdParams, Ok, PageOf } from '../../../platform/http/schemas.ts';
import { ConnectionTestResult } from '../../../platform/provider-configs/index.ts';
import type { StorageConfigService } from '../storage/configs-service.ts';
import { StorageConfig, StorageConfigCreate, StorageConfigQuery, StorageConfigUpdate } from '../storage/schemas.ts';

const tags = ['Files'];

/** `/api/storage-configs`: admin-managed storage configurations of the caller's tenant. */
export function registerStorageRoutes(app: FastifyInstance, configs: StorageConfigService) {
  route(app, {
    method: 'GET',
    url: '/api/storage-configs',
    operation: 'files.storage_config.list',
    auth: 'user',
    permission: 'system:storage:list',
    schema: {
      tags,
      summary: 'List storage configurations (secrets are never answered: see hasSecret)',
      querystring: StorageConfigQuery,
      response: PageOf(StorageConfig),
    },
    handler: async (req) => configs.list(req.scope, req.query),
  });

  route(app, {
    method: 'GET',
    url: '/api/storage-configs/:id',
    operation: 'files.storage_config.get',
    auth: 'user',
    permission: 'system:storage:list',
    schema: { tags, summary: 'Get a storage configuration', params: IdParams, response: StorageConfig },
    handler: async (req) => configs.get(req.scope, req.params.id),
  });

  route(app, {
    method: 'POST',
    url: '/api/storage-configs',
    operation: 'files.storage_config.create',
    auth: 'user',
    permission: 'system:storage:create',
    status: 201,
    schema: {
      tags,
      summary: 'Create a storage configuration (local disk or S3-compatible; the secret is stored encrypted)',
      body: StorageConfigCreate,
      response: StorageConfig,
    },
    handler: async (req) => configs.create(req.scope, req.body),
  });

  route(app, {
    method: 'PUT',
    url: '/api/storage-configs/:id',
    operation: 'files.storage_config.update',
    auth: 'user',
    permission: 'system:storage:update',
    schema: {
      tags,
      summary: 'Update a storage configuration (an omitted secret is kept; the kind cannot change)',
      params: IdParams,
      body: StorageConfigUpdate,
      response: StorageConfig,
    },
    handler: async (req) => configs.update(req.scope, req.params.id, req.body),
  });

  route(app, {
    method: 'DELETE',
    url: '/api/storage-configs/:id',
    operation: 'files.storage_config.delete',
    auth: 'user',
    permission: 'system:storage:delete',
    schema: {
      tags,
      summary: 'Delete a storage configuration (not the default, not one that holds files)',
      params: IdParams,
      response: Ok,
    },
    handler: async (req) => {
      await configs.remove(req.scope, req.params.id);
    },
  });

  route(app, {
    method: 'POST',
    url: '/api/storage-configs/:id/default',
    operation: 'files.storage_config.make_default',
    auth: 'user',
    permission: 'system:storage:update',
    schema: {
      tags,
      summary: 'Make this the default storage of new files (the previous default is unset atomically)',
      params: IdParams,
      response: StorageConfig,
    },
    handler: async (req) => configs.makeDefault(req.scope, req.params.id),
  });

  route(app, {
    method: 'POST',
    url: '/api/storage-configs/:id/test',
    operation: 'files.storage_config.test',
    auth: 'user',
    permission: 'system:storage:update',
    schema: {
      tags,
      summary: 'Check connectivity: write, read back and delete a small probe object',
      params: IdParams,
      response: ConnectionTestResult,
    },
    handler: async (req) => configs.test(req.scope, req.params.id),
  });
}
