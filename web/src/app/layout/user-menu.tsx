import { type KeyboardEvent, useEffect, useId, useRef, useState } from 'react';
import { Link, useLocation } from 'react-router';
import { useOperatorAccess } from '../../features/operator/api/get-operator-access';
import { operatorLink, userMenuLinks } from './nav-items';
import { useDismiss } from './use-dismiss';

interface UserMenuProps {
  initial: string;
  /** Display name or e-mail, announced with the button and shown at the top of the menu. */
  label: string;
  email: string | null;
  onSignOut: () => void;
}

const itemClass =
  'block w-full px-4 py-2 text-left text-sm text-gray-700 hover:bg-gray-100 focus:bg-gray-100 focus:outline-none focus-visible:ring-2 focus-visible:ring-indigo-600 focus-visible:ring-inset';

export function UserMenu({ initial, label, email, onSignOut }: UserMenuProps) {
  const { pathname } = useLocation();
  // Remembering the page the menu was opened on closes it whenever the page changes.
  const [openOn, setOpenOn] = useState<string | null>(null);
  const open = openOn === pathname;
  const setOpen = (value: boolean) => setOpenOn(value ? pathname : null);
  const container = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  const menu = useRef<HTMLDivElement>(null);
  const menuId = useId();
  // Operators (ADMIN_EMAILS) also get the operator page; for anyone else the server answers 404.
  const operator = useOperatorAccess();
  const links = operator.data === true ? [...userMenuLinks, operatorLink] : userMenuLinks;

  useDismiss(open, container, (reason) => {
    setOpen(false);
    if (reason === 'escape') button.current?.focus();
  });

  useEffect(() => {
    if (open) menu.current?.querySelector<HTMLElement>('[role="menuitem"]')?.focus();
  }, [open]);

  function handleMenuKeyDown(event: KeyboardEvent<HTMLDivElement>) {
    const items = Array.from(menu.current?.querySelectorAll<HTMLElement>('[role="menuitem"]') ?? []);
    const index = items.indexOf(document.activeElement as HTMLElement);
    const focusAt = (next: number) => items[(next + items.length) % items.length]?.focus();
    if (event.key === 'ArrowDown') focusAt(index + 1);
    else if (event.key === 'ArrowUp') focusAt(index - 1);
    else if (event.key === 'Home') focusAt(0);
    else if (event.key === 'End') focusAt(items.length - 1);
    else if (event.key === 'Tab') return setOpen(false);
    else return;
    event.preventDefault();
  }

  return (
    <div ref={container} className="relative">
      <button
        ref={button}
        type="button"
        data-testid="user-menu-button"
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={open ? menuId : undefined}
        aria-label={`User menu for ${label}`}
        onClick={() => setOpen(!open)}
        onKeyDown={(event) => {
          if (event.key === 'ArrowDown' && !open) {
            event.preventDefault();
            setOpen(true);
          }
        }}
        className="flex h-9 w-9 items-center justify-center rounded-full bg-indigo-600 text-sm font-semibold text-white hover:bg-indigo-500 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600"
      >
        {initial}
      </button>
      {open ? (
        <div
          ref={menu}
          id={menuId}
          role="menu"
          aria-label="User menu"
          tabIndex={-1}
          onKeyDown={handleMenuKeyDown}
          className="absolute right-0 z-20 mt-2 w-56 origin-top-right overflow-hidden rounded-md bg-white py-1 shadow-lg ring-1 ring-black/5"
        >
          <div className="border-b border-gray-100 px-4 py-2" role="none">
            <p className="truncate text-sm font-medium text-gray-900">{label}</p>
            {email && email !== label ? <p className="truncate text-xs text-gray-500">{email}</p> : null}
          </div>
          {links.map((link) => (
            <Link key={link.label} to={link.to} role="menuitem" tabIndex={-1} className={itemClass} onClick={() => setOpen(false)}>
              {link.label}
            </Link>
          ))}
          <button
            type="button"
            role="menuitem"
            tabIndex={-1}
            className={itemClass}
            onClick={() => {
              setOpen(false);
              onSignOut();
            }}
          >
            Sign out
          </button>
        </div>
      ) : null}
    </div>
  );
}
