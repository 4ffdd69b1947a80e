import type { ComponentChildren } from 'preact';
import { navigate } from '../routes';

interface LinkProps {
  href: string;
  children: ComponentChildren;
  class?: string;
  'aria-current'?: 'page';
}

/** An ordinary link (open in a new tab works) that moves within the console without a reload. */
export function Link({ href, children, ...rest }: LinkProps) {
  return (
    <a
      href={href}
      {...rest}
      onClick={(event) => {
        if (
          event.defaultPrevented ||
          event.button !== 0 ||
          event.metaKey ||
          event.ctrlKey ||
          event.shiftKey ||
          event.altKey
        )
          return;
        event.preventDefault();
        navigate(href);
      }}
    >
      {children}
    </a>
  );
}
