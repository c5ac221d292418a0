import { CheckCircleOutlined, ExportOutlined } from '@ant-design/icons';
import { useMutation } from '@tanstack/react-query';
import { Alert, Avatar, Button, Flex, List, Tag, Typography } from 'antd';
import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';
import type { paths } from '../../api/schema';
import { ErrorMessage } from '../../components/error-message';
import { type AuthorizationRequest, type ConsentClient, type ConsentInfo, decide, hostOf } from './authorize-calls';
import { Frame } from './frame';

type Me = paths['/api/auth/me']['get']['responses'][200]['content']['application/json']['data'];

/** A scope in plain words: the console's own for the built-in ones, the server's description otherwise. */
function scopeText(t: TFunction<'oauth'>, scope: { name: string; description: string }): string {
  // i18next reads ':' as a namespace separator, so drive:read is looked up as drive_read
  return t(`scope.${scope.name.replaceAll(':', '_')}`, { defaultValue: scope.description });
}

/**
 * The question itself: who asks (name, logo, homepage host), for what (each scope, and whether it
 * was granted before), where the answer goes (the redirect host, prominently), and who answers.
 */
export function ConsentCard(props: {
  request: AuthorizationRequest;
  client: ConsentClient;
  info: ConsentInfo;
  me: Me;
  onSomeoneElse: () => void;
}) {
  const { t } = useTranslation('oauth');
  const { request, client, info, me } = props;
  const answer = useMutation({
    mutationFn: (decision: 'approve' | 'deny') => decide(request, decision),
    onSuccess: (redirectUrl) => window.location.assign(redirectUrl),
  });
  const homepage = hostOf(client.homepageUrl);
  const redirectHost = new URL(info.redirectUri).host;
  const who = me.user.nickname || me.user.username;
  const granted = new Set(info.previouslyGranted);

  return (
    <Frame
      title={
        <Flex align="center" gap={12}>
          {client.logoUrl ? <Avatar shape="square" size={40} src={client.logoUrl} alt="" /> : null}
          <span>{t('title', { name: info.client.name })}</span>
        </Flex>
      }
    >
      <Typography.Paragraph style={{ margin: 0 }}>{t('lead', { name: info.client.name })}</Typography.Paragraph>
      {homepage ? (
        <Typography.Link href={client.homepageUrl} target="_blank" rel="noopener noreferrer">
          {t('homepage', { host: homepage })} <ExportOutlined aria-label={t('opensNewWindow')} />
        </Typography.Link>
      ) : null}

      <section aria-labelledby="consent-scopes">
        <Typography.Title level={2} id="consent-scopes" style={{ fontSize: 16 }}>
          {t('scopesHeading')}
        </Typography.Title>
        <List
          size="small"
          bordered
          dataSource={info.scopes}
          renderItem={(scope) => (
            <List.Item>
              <Flex justify="space-between" align="center" gap={8} style={{ width: '100%' }}>
                <span>
                  <CheckCircleOutlined aria-hidden style={{ marginInlineEnd: 8 }} />
                  {scopeText(t, scope)}
                </span>
                {granted.has(scope.name) ? <Tag color="green">{t('previouslyGranted')}</Tag> : null}
              </Flex>
            </List.Item>
          )}
        />
      </section>

      <Alert
        type="warning"
        showIcon
        title={t('redirectHeading')}
        description={
          <Typography.Text strong style={{ fontSize: 16 }} data-testid="redirect-host">
            {redirectHost}
          </Typography.Text>
        }
      />

      <Typography.Text>
        {t('signedInAs', { name: who, tenant: me.tenant?.name ?? t('platform') })}{' '}
        <Button type="link" onClick={props.onSomeoneElse} style={{ padding: 0, height: 'auto' }}>
          {t('notYou')}
        </Button>
      </Typography.Text>

      <ErrorMessage error={answer.error} />

      <Flex gap={8} justify="flex-end">
        <Button onClick={() => answer.mutate('deny')} disabled={answer.isPending || answer.isSuccess}>
          {t('deny')}
        </Button>
        <Button
          type="primary"
          autoFocus
          onClick={() => answer.mutate('approve')}
          loading={answer.isPending && answer.variables === 'approve'}
          disabled={answer.isSuccess}
        >
          {t('approve')}
        </Button>
      </Flex>
    </Frame>
  );
}
