import { InboxOutlined } from '@ant-design/icons';
import { Alert, Descriptions, Form, Input, List, Space, Typography, Upload, type UploadProps } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ErrorMessage } from '../../components/error-message';
import { submitFile } from './collect-upload';
import { formatBytes } from './format';
import type { ShareMetadata, SubmissionReceipt } from './share-api';

type Collect = NonNullable<ShareMetadata['collect']>;
/** a refusal: the server's (error) or this page's own check before sending (text) */
type Failure = { id: number; name: string; error?: unknown; text?: string };
let failureIds = 0;

/**
 * A collection link: the limits first, so nobody uploads a file only to have it refused; then the
 * name and note, and a drop zone whose files go one request each, with their progress. The server
 * checks everything again (decision 0018): the checks here only spare a wasted upload.
 */
export default function CollectView({ token, meta }: { token: string; meta: ShareMetadata }) {
  const { t, i18n } = useTranslation('share');
  const [form] = Form.useForm<{ submitterName?: string; note?: string }>();
  const policy = meta.collect as Collect;
  const [remaining, setRemaining] = useState({ files: policy.remainingFiles, bytes: policy.remainingBytes });
  const [sent, setSent] = useState<SubmissionReceipt[]>([]);
  const [failures, setFailures] = useState<Failure[]>([]);
  const maxBytes = policy.maxFileSizeMb * 1024 * 1024;
  const size = (b: number) => formatBytes(b, i18n.language);
  const types = policy.allowedExtensions.map((e) => `.${e}`).join(', ');
  const full = remaining.files === 0 || remaining.bytes === 0;

  const fail = (failure: Omit<Failure, 'id'>) => setFailures((f) => [...f, { ...failure, id: ++failureIds }]);

  const beforeUpload: UploadProps['beforeUpload'] = async (file) => {
    if (policy.requireName) {
      try {
        await form.validateFields(['submitterName']);
      } catch {
        return Upload.LIST_IGNORE;
      }
    }
    const ext = file.name.includes('.') ? (file.name.split('.').pop() ?? '').toLowerCase() : '';
    if (policy.allowedExtensions.length > 0 && !policy.allowedExtensions.includes(ext)) {
      fail({ name: file.name, text: t('collect.wrongType', { name: file.name, types }) });
      return Upload.LIST_IGNORE;
    }
    if (file.size > maxBytes) {
      fail({ name: file.name, text: t('collect.tooBig', { name: file.name, max: size(maxBytes) }) });
      return Upload.LIST_IGNORE;
    }
    return true;
  };

  const customRequest: UploadProps['customRequest'] = ({ file, onProgress, onSuccess, onError }) => {
    const f = file as File;
    const { submitterName, note } = form.getFieldsValue();
    submitFile(token, { file: f, submitterName: submitterName?.trim(), note: note?.trim() }, (percent) =>
      onProgress?.({ percent }),
    )
      .then((receipt) => {
        setSent((s) => [receipt, ...s]);
        setRemaining({ files: receipt.remainingFiles, bytes: receipt.remainingBytes });
        onSuccess?.(receipt);
      })
      .catch((err: unknown) => {
        fail({ name: f.name, error: err });
        onError?.(err instanceof Error ? err : new Error(String(err)));
      });
  };

  return (
    <Space direction="vertical" size="large" style={{ width: '100%' }}>
      <div>
        <Typography.Title level={1} style={{ fontSize: 24, margin: 0 }}>
          {t('collect.heading', { name: meta.node?.name ?? '' })}
        </Typography.Title>
        <Typography.Paragraph type="secondary" style={{ marginTop: 8 }}>
          {t('collect.intro')}
        </Typography.Paragraph>
      </div>
      {policy.instructions ? (
        <Alert type="info" title={t('collect.instructions')} description={policy.instructions} showIcon />
      ) : null}
      <section aria-labelledby="collect-limits">
        <Typography.Title level={2} id="collect-limits" style={{ fontSize: 18 }}>
          {t('collect.limits')}
        </Typography.Title>
        <Descriptions
          bordered
          size="small"
          column={{ xs: 1, sm: 2 }}
          items={[
            { key: 'size', label: t('collect.maxFileSize'), children: size(maxBytes) },
            { key: 'types', label: t('collect.allowedExtensions'), children: types || t('collect.anyExtension') },
            {
              key: 'name',
              label: t('collect.name'),
              children: policy.requireName ? t('collect.nameRequired') : t('collect.nameOptional'),
            },
            {
              key: 'files',
              label: t('collect.remainingFiles'),
              children: remaining.files ?? t('collect.unlimited'),
            },
            {
              key: 'bytes',
              label: t('collect.remainingBytes'),
              children: remaining.bytes === null ? t('collect.unlimited') : size(remaining.bytes),
            },
          ]}
        />
      </section>
      {full ? (
        <Alert type="warning" showIcon title={t('state.exhausted.title')} description={t('state.exhausted.body')} />
      ) : (
        <Form form={form} layout="vertical" requiredMark={policy.requireName ? true : 'optional'}>
          <Form.Item
            name="submitterName"
            label={t('collect.name')}
            rules={[
              { required: policy.requireName, whitespace: true, message: t('collect.nameMissing') },
              { max: 100 },
            ]}
          >
            <Input autoComplete="name" maxLength={100} />
          </Form.Item>
          <Form.Item name="note" label={t('collect.note')} rules={[{ max: 300 }]}>
            <Input.TextArea placeholder={t('collect.notePlaceholder')} maxLength={300} showCount rows={2} />
          </Form.Item>
          <Upload.Dragger
            name="file"
            multiple
            beforeUpload={beforeUpload}
            customRequest={customRequest}
            accept={types || undefined}
            showUploadList={{ showRemoveIcon: false }}
          >
            <p className="ant-upload-drag-icon">
              <InboxOutlined aria-hidden />
            </p>
            <p className="ant-upload-text">{t('collect.drop')}</p>
            <p className="ant-upload-hint">{t('collect.dropHint')}</p>
          </Upload.Dragger>
        </Form>
      )}
      <div aria-live="polite">
        {failures.map((f) => (
          <Space key={f.id} direction="vertical" style={{ width: '100%', marginBottom: 8 }}>
            <Typography.Text strong>{t('collect.failed', { name: f.name })}</Typography.Text>
            {f.text ? <Alert type="error" showIcon title={f.text} /> : <ErrorMessage error={f.error} />}
          </Space>
        ))}
      </div>
      {sent.length > 0 ? (
        <section aria-labelledby="collect-sent">
          <Typography.Title level={2} id="collect-sent" style={{ fontSize: 18 }}>
            {t('collect.sent')}
          </Typography.Title>
          <List
            bordered
            dataSource={sent}
            renderItem={(r) => (
              <List.Item>
                <Typography.Text>{r.originalName}</Typography.Text>
                <Typography.Text type="secondary">
                  {size(r.size)}
                  {r.fileName !== r.originalName ? ` · ${t('collect.sentAs', { name: r.fileName })}` : ''}
                </Typography.Text>
              </List.Item>
            )}
          />
        </section>
      ) : null}
    </Space>
  );
}
