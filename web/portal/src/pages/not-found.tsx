import { Link } from '../router.js';
import { PageHeading } from '../ui.js';

export function NotFoundPage() {
  return (
    <>
      <PageHeading title="Page not found" />
      <p>
        The portal has no page at this address. <Link href="/">Go to the home page</Link>.
      </p>
    </>
  );
}
