import { AppError } from '../../../platform/http/errors.ts';

/** Errors of storage configurations (`files.storage_*`). */
export const storageErrors = {
  notFound: () => new AppError(404, 'files.storage_config_not_found', 'storage configuration not found'),
  nameExists: () =>
    new AppError(409, 'files.storage_config_exists', 'A storage configuration with this name already exists', {
      details: [{ field: 'name', message: 'already exists' }],
    }),
  isDefault: (what: 'deleted' | 'disabled') =>
    new AppError(409, 'files.storage_config_default', `The default storage configuration cannot be ${what}`),
  disabled: () =>
    new AppError(409, 'files.storage_config_disabled', 'A disabled storage configuration cannot be the default'),
  inUse: () =>
    new AppError(
      409,
      'files.storage_config_in_use',
      'The storage configuration still holds files and cannot be deleted',
    ),
  defaultConflict: () =>
    new AppError(409, 'files.storage_default_conflict', 'Another default was set at the same time; try again'),
};
