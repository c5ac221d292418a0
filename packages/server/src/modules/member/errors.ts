import { httpErrors } from '../../platform/http/errors.ts';

/** The member module's errors: `member.<reason>`. */
export const memberErrors = {
  notFound: () => httpErrors.notFound('member.member_not_found', 'Member'),
};
