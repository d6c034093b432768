// An anchor that navigates within the console without a page load, and still behaves as a link
// (middle-click, copy address, open in a new tab).

import type { AnchorHTMLAttributes, MouseEvent } from 'react';
import { navigate } from '../router';

export function Link({ href, onClick, ...rest }: AnchorHTMLAttributes<HTMLAnchorElement> & { href: string }) {
  const click = (event: MouseEvent<HTMLAnchorElement>) => {
    onClick?.(event);
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(href);
  };
  return <a href={href} onClick={click} {...rest} />;
}
