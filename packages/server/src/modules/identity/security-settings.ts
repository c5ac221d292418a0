import { Type } from 'typebox';
import type { SettingsModule } from '../../platform/settings/registry.ts';

/** Runtime settings module `security` (issue 2 §9): captcha, login lock, password length. */
export type SecuritySettings = {
  captchaEnabled: boolean;
  lockThreshold: number;
  lockMinutes: number;
  passwordMinLength: number;
};

export const securitySettings: SettingsModule = {
  module: 'security',
  title: 'Sign-in security',
  fields: {
    captchaEnabled: {
      schema: Type.Boolean(),
      default: true,
      visibility: 'public',
      description: 'Ask for a captcha at sign-in',
    },
    lockThreshold: {
      schema: Type.Integer({ minimum: 1, maximum: 100 }),
      default: 5,
      visibility: 'admin',
      description: 'Consecutive failed sign-ins that lock an account',
    },
    lockMinutes: {
      schema: Type.Integer({ minimum: 1, maximum: 1440 }),
      default: 15,
      visibility: 'admin',
      description: 'How long a locked account stays locked',
    },
    passwordMinLength: {
      schema: Type.Integer({ minimum: 8, maximum: 128 }),
      default: 8,
      visibility: 'public',
      description: 'Minimum length of a new password',
    },
  },
};
