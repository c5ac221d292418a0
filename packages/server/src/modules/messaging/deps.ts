import type { FastifyInstance } from 'fastify';
import type { ChannelAdapter } from './channels/types.ts';

export type ContactRow = {
  id: number;
  tenantId: number | null;
  name: string;
  email: string | null;
  phone: string | null;
  active: boolean;
};

export type AudienceTarget = { type: 'user' | 'role' | 'dept'; id: number };

/** What the messaging module needs from other modules (their exported service functions). */
export type MessagingDeps = {
  userContacts(tenantId: number | null, ids: number[]): Promise<ContactRow[]>;
  memberContacts(tenantId: number | null, ids: number[]): Promise<ContactRow[]>;
  /** active users of a tenant reached by user ids, roles, departments (with sub-departments) */
  usersByTargets(tenantId: number | null, targets: AudienceTarget[]): Promise<number[]>;
  /** the targets one user matches: own id, roles, department and its ancestors */
  targetsOfUser(userId: number): Promise<AudienceTarget[]>;
  /** the targets that name no user, role or department of the tenant */
  missingTargets(tenantId: number | null, targets: AudienceTarget[]): Promise<AudienceTarget[]>;
  /** every active user of a tenant */
  activeUsers(tenantId: number | null): Promise<number[]>;
};

/** A part of the messaging module: its routes, and the channel adapter it provides (if any). */
export type MessagingArea = {
  adapter?: ChannelAdapter;
  register(app: FastifyInstance): void;
};
