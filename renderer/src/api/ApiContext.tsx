// Makes the api (and whether this is the desktop app) available to every component.
import { createContext, useContext } from 'react';
import type { CairnApi } from '../../../core/contract/appApi.ts';
import type { DesktopApi } from './desktopApi.ts';

export interface ApiContextValue {
  api: CairnApi;
  /** Present in the desktop app only. */
  desktop: DesktopApi | null;
}

export const ApiContext = createContext<ApiContextValue | null>(null);

export function useApi(): ApiContextValue {
  const value = useContext(ApiContext);
  if (!value) throw new Error('useApi outside <ApiContext.Provider>');
  return value;
}
