import { AppError } from '../../../platform/http/errors.ts';

/** Errors of the push channel (`messaging.push_*`). */
export const pushErrors = {
  deviceNotFound: () => new AppError(404, 'messaging.push_device_not_found', 'push device not found'),
  deviceConflict: () =>
    new AppError(409, 'messaging.push_device_conflict', 'The device was bound at the same time; try again'),
};
