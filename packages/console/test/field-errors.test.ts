import i18next from 'i18next';
import { beforeAll, describe, expect, it } from 'vitest';
import { ApiCallError, type ApiError } from '../src/api/client';
import { fieldErrorText } from '../src/components/error-text';
import enErrors from '../src/i18n/en/errors.json';
import zhErrors from '../src/i18n/zh-CN/errors.json';

/** A refused field reads in the person's language, whatever words the server used. */
const refusal = (body: Partial<ApiError> & Pick<ApiError, 'details'>) =>
  new ApiCallError({
    code: 400,
    error: 'request.validation_failed',
    message: 'The request has invalid fields',
    ...body,
  });

describe('a refused field in the person’s language', () => {
  const i18n = i18next.createInstance();
  beforeAll(async () => {
    await i18n.init({ resources: { en: { errors: enErrors }, 'zh-CN': { errors: zhErrors } }, lng: 'zh-CN' });
  });
  const zh = () => i18n.getFixedT('zh-CN');
  const en = () => i18n.getFixedT('en');

  it('says the broken rule with its bound', () => {
    const d = { field: 'password', message: 'must NOT have fewer than 8 characters', rule: 'minLength', limit: 8 };
    const err = refusal({ details: [d] });
    expect(fieldErrorText(zh(), err, d)).toBe('至少 8 个字符。');
    expect(fieldErrorText(en(), err, d)).toBe('At least 8 characters.');
  });

  it('says a taken value in words, whatever the module', () => {
    const d = { field: 'username', message: 'already exists', rule: 'unique' };
    const err = refusal({ code: 409, error: 'identity.user_exists', details: [d] });
    expect(fieldErrorText(zh(), err, d)).toBe('已存在。');
  });

  it('uses the error’s own key when the field names no rule, and the server’s words last', () => {
    const d = { field: 'code', message: 'A tenant with this code already exists' };
    expect(fieldErrorText(en(), refusal({ code: 409, error: 'identity.tenant_exists', details: [d] }), d)).toBe(
      'A tenant with this code already exists.',
    );
    const unknown = { field: 'x', message: 'is odd', rule: 'someday_a_new_rule' };
    expect(fieldErrorText(zh(), refusal({ details: [unknown] }), unknown)).toBe('is odd');
  });
});
