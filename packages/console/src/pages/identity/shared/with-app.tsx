import { App } from 'antd';
import type { ComponentType } from 'react';

/** A page with antd's App context (message, modal) without the shell having to provide it. */
export function withApp(Page: ComponentType) {
  return function WithApp() {
    return (
      <App component={false}>
        <Page />
      </App>
    );
  };
}
