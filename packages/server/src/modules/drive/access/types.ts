import type { DriveRole, SubjectType } from '../tables.ts';

/** A grant or member subject. */
export type GrantSubject = { type: SubjectType; id: number };

/** A user as a grant subject (identity answers it; the drive declares the shape). */
export type GrantSubjects = {
  userId: number;
  departmentId: number | null;
  /** the user's department and its ancestors: a grant to any of them reaches the user */
  departmentIds: number[];
  headOfDepartmentIds: number[];
  roleIds: number[];
  groupIds: number[];
};

/** What the drive needs from identity, wired by app.ts. */
export type DriveDirectory = {
  grantSubjectsOfUser(tenantId: number | null, userId: number): Promise<GrantSubjects | null>;
  departmentChain(tenantId: number | null, departmentId: number): Promise<number[] | null>;
  departmentHead(tenantId: number | null, departmentId: number): Promise<number | null>;
  describeSubjects(tenantId: number | null, subjects: GrantSubject[]): Promise<(GrantSubject & { name: string })[]>;
  usersOfSubject(tenantId: number | null, subject: GrantSubject): Promise<number[]>;
};

/** Where a part of an effective role comes from (GET /api/drive/nodes/{id}/access). */
export type RoleSource = {
  kind: 'admin' | 'owner' | 'departmentHead' | 'departmentMember' | 'signedIn' | 'member' | 'grant';
  role: DriveRole;
  /** the member or grant subject that matched */
  subject?: GrantSubject;
  /** the node a grant is on */
  nodeId?: number;
  expiresAt?: Date | null;
  /** false: shown for understanding, but it does not count (expired; space role cut by a break) */
  applies: boolean;
  reason?: string;
};
