import { createRoot } from 'react-dom/client';
import { App } from './app/app.tsx';
import { startErrorReporting } from './app/error-reporting';
import './app/base.css';

createRoot(document.getElementById('root') as HTMLElement).render(<App />);
// errors are noted from here on (its module's listeners); the reporter itself loads after the first paint
startErrorReporting();
