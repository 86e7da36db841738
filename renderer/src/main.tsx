import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { ApiContext } from './api/ApiContext.tsx';
import { connectApi } from './api/connectApi.ts';
import { App } from './App.tsx';
import { ToastProvider } from './hooks/toasts.tsx';
import './styles.css';

const connection = connectApi();
const root = createRoot(document.getElementById('root')!);

if (connection.kind === 'none') {
  root.render(
    <main className="blocked-page">
      <h1>Cairn</h1>
      <p>{connection.reason}</p>
    </main>,
  );
} else {
  root.render(
    <StrictMode>
      <ApiContext.Provider value={{ api: connection.api, desktop: connection.kind === 'desktop' ? connection.api : null }}>
        <ToastProvider>
          <App />
        </ToastProvider>
      </ApiContext.Provider>
    </StrictMode>,
  );
}
