import { type SecretBox, secretContext } from '../crypto/secrets.ts';

/**
 * The secret column of a provider configuration: encrypted with its table, column and row id as
 * context (so a value copied into another row does not decrypt), and never answered: the masked
 * view drops it and `tenantId`, and says with `flag` whether one is stored.
 */
export type SecretSpec<Row> = {
  /** SQL names, for the encryption context: `<table>.<column>:<id>` */
  table: string;
  column: string;
  /** the row's property holding the encrypted value */
  key: keyof Row & string;
  /** the masked view's boolean: whether a secret is stored */
  flag: string;
};

export type Masked<Row, K extends keyof Row, F extends string> = Omit<Row, K | 'tenantId'> & Record<F, boolean>;

export function configSecret<Row extends { id: number }, K extends keyof Row & string, F extends string>(
  secrets: SecretBox,
  spec: { table: string; column: string; key: K; flag: F },
) {
  const context = (id: number) => secretContext(spec.table, spec.column, id);
  return {
    seal: (id: number, plain: string) => secrets.encrypt(plain, context(id)),
    /** the stored secret in clear, or null when none is stored; throws when it does not decrypt */
    open(row: Row): string | null {
      const stored = row[spec.key] as string | null;
      return stored ? secrets.decrypt(stored, context(row.id)) : null;
    },
    mask(row: Row): Masked<Row, K, F> {
      const { [spec.key]: stored, tenantId: _tenant, ...rest } = row as Row & { tenantId?: unknown };
      return { ...rest, [spec.flag]: Boolean(stored) } as unknown as Masked<Row, K, F>;
    },
  };
}

/** An error text for an admin, with the secret blanked out and the length capped. */
export function redacted(text: string, secret: string | null): string {
  return (secret ? text.split(secret).join('***') : text).slice(0, 500);
}
