import { useEffect, useState } from 'react';
import { isSignedIn, onSessionChange, refresh } from '../../app/session';

/**
 * Whether the visitor is also signed in to the console (a silent refresh succeeds): a public page
 * never asks anyone to sign in, it only offers more to those who are.
 */
export function useSignedIn(): boolean {
  const [signedIn, setSignedIn] = useState(isSignedIn());
  useEffect(() => {
    const stop = onSessionChange(setSignedIn);
    if (!isSignedIn()) void refresh();
    return stop;
  }, []);
  return signedIn;
}
