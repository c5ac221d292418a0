import { Type } from 'typebox';
import type { SettingsModule } from '../../platform/settings/registry.ts';
import type { Channel } from './channels/types.ts';

/**
 * Runtime settings module `messaging`: a switch per channel (a switched-off channel yields
 * `channel_unavailable`), and the chat bot the chat channel posts to for user recipients.
 */
export type MessagingSettings = Record<`${Channel}Enabled`, boolean> & {
  /** bot webhook the chat channel posts cards to for users and members; empty = they are unreachable on chat */
  chatWebhookUrl: string;
};

const channelSwitch = (channel: Channel) => ({
  schema: Type.Boolean(),
  default: true,
  visibility: 'admin' as const,
  description: `deliver notifications on the ${channel} channel`,
});

export const messagingSettings: SettingsModule = {
  module: 'messaging',
  title: 'Notifications',
  fields: {
    inappEnabled: channelSwitch('inapp'),
    emailEnabled: channelSwitch('email'),
    smsEnabled: channelSwitch('sms'),
    pushEnabled: channelSwitch('push'),
    webhookEnabled: channelSwitch('webhook'),
    chatEnabled: channelSwitch('chat'),
    chatWebhookUrl: {
      schema: Type.String({ maxLength: 1000 }),
      default: '',
      visibility: 'admin',
      description: 'bot webhook URL (https) the chat channel posts notification cards to',
    },
  },
};
