import type { Contact, Recipient } from '../channels/types.ts';
import type { ContactRow, MessagingDeps } from '../deps.ts';

export const recipientKey = (r: Recipient): string =>
  r.type === 'user' ? `u:${r.id}` : r.type === 'member' ? `m:${r.id}` : `e:${r.channel}:${r.address.trim()}`;

/** A recipient with its contact, or `contact: null` when it is not an active user/member of the tenant. */
export type ResolvedRecipient = { recipient: Recipient; key: string; contact: Contact | null };

/** Distinct recipients (first occurrence wins) with their contacts, in two bulk lookups. */
export async function resolveRecipients(
  deps: Pick<MessagingDeps, 'userContacts' | 'memberContacts'>,
  tenantId: number | null,
  recipients: Recipient[],
): Promise<ResolvedRecipient[]> {
  const unique = new Map<string, Recipient>();
  for (const r of recipients) if (!unique.has(recipientKey(r))) unique.set(recipientKey(r), r);
  const list = [...unique.values()];
  const idsOf = (type: 'user' | 'member') => list.flatMap((r) => (r.type === type ? [r.id] : []));
  const [users, members] = await Promise.all([
    deps.userContacts(tenantId, idsOf('user')),
    deps.memberContacts(tenantId, idsOf('member')),
  ]);
  const byKey = new Map<string, ContactRow>();
  for (const u of users) byKey.set(`u:${u.id}`, u);
  for (const m of members) byKey.set(`m:${m.id}`, m);
  return list.map((recipient) => {
    const key = recipientKey(recipient);
    if (recipient.type === 'external') {
      const address = recipient.address.trim();
      return {
        recipient,
        key,
        contact: {
          type: 'external',
          id: null,
          key,
          tenantId,
          name: address,
          email: recipient.channel === 'email' ? address : null,
          phone: recipient.channel === 'sms' ? address : null,
          address,
        },
      };
    }
    const row = byKey.get(key);
    if (!row?.active) return { recipient, key, contact: null };
    return {
      recipient,
      key,
      contact: { type: recipient.type, id: row.id, key, tenantId: row.tenantId, ...pick(row), address: null },
    };
  });
}

const pick = (r: ContactRow) => ({ name: r.name, email: r.email, phone: r.phone });
