import { createRoot } from 'react-dom/client';
import { App } from './app/app.tsx';
import './app/base.css';

createRoot(document.getElementById('root') as HTMLElement).render(<App />);
