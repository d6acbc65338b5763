import { type RefObject, useEffect, useRef } from 'react';

export type DismissReason = 'outside' | 'escape';

/** Closes an open menu when the user clicks or touches outside `container`, or presses Escape. */
export function useDismiss(open: boolean, container: RefObject<HTMLElement | null>, onDismiss: (reason: DismissReason) => void) {
  const latest = useRef(onDismiss);
  latest.current = onDismiss;

  useEffect(() => {
    if (!open) return;
    function handlePointer(event: MouseEvent | TouchEvent) {
      if (container.current && !container.current.contains(event.target as Node)) latest.current('outside');
    }
    function handleKey(event: KeyboardEvent) {
      if (event.key === 'Escape') latest.current('escape');
    }
    document.addEventListener('mousedown', handlePointer);
    document.addEventListener('touchstart', handlePointer);
    document.addEventListener('keydown', handleKey);
    return () => {
      document.removeEventListener('mousedown', handlePointer);
      document.removeEventListener('touchstart', handlePointer);
      document.removeEventListener('keydown', handleKey);
    };
  }, [open, container]);
}
