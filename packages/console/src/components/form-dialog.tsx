import { useMutation } from '@tanstack/react-query';
import { Form, type FormInstance, Modal, Spin } from 'antd';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { ErrorMessage } from './error-message';
import { applyFieldErrors } from './form-errors';

type Props<V, R> = {
  title: string;
  form: FormInstance<V>;
  /** what Save does with the checked values; the server's field errors come back on their fields */
  save: (values: V) => Promise<R>;
  onSaved: (result: R) => void;
  onCancel: () => void;
  initialValues?: Partial<V>;
  /** the record being edited, or what the form offers, is still loading */
  loading?: boolean;
  /** why loading it failed */
  loadError?: unknown;
  width?: number;
  children: ReactNode;
};

/**
 * Every create and edit form of the console: a dialog whose Save checks the fields, sends them,
 * and closes only on success; a refusal stays in the dialog, on its fields and in words with the
 * request id.
 */
export function FormDialog<V, R>(props: Props<V, R>) {
  const { t } = useTranslation();
  const { form } = props;
  const save = useMutation({
    mutationFn: props.save,
    onSuccess: props.onSaved,
    onError: (err) => applyFieldErrors(form, err),
  });
  return (
    <Modal
      open
      title={props.title}
      okText={t('save')}
      cancelText={t('cancel')}
      confirmLoading={save.isPending}
      onOk={() => form.submit()}
      onCancel={props.onCancel}
      destroyOnHidden
      width={props.width ?? 560}
    >
      {props.loading ? <Spin /> : null}
      <ErrorMessage error={props.loadError ?? save.error} />
      <Form<V>
        form={form}
        layout="vertical"
        initialValues={props.initialValues}
        onFinish={(v) => save.mutate(v)}
        style={{ marginTop: 16 }}
      >
        {props.children}
      </Form>
    </Modal>
  );
}
