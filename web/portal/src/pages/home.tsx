import { useSignedIn } from '../signed-in.js';
import { Link } from '../router.js';
import { SECTIONS } from '../sections.js';
import { PageHeading } from '../ui.js';

/** The signed-in person's first page: a greeting, and what waits for them in each section, linked. */
export function HomePage() {
  const { person, workspace, waiting } = useSignedIn();
  const due = (waiting ?? []).filter((w) => w.count > 0);
  return (
    <>
      <PageHeading title="Home" context={workspace.name} />
      <p>Welcome, {person.givenName || person.email}.</p>
      <section aria-labelledby="waiting" class="panel">
        <h2 id="waiting">What needs you</h2>
        {waiting === null ? (
          <p aria-live="polite">Looking…</p>
        ) : due.length === 0 ? (
          <p>Nothing needs you right now.</p>
        ) : (
          <ul class="waiting">
            {due.map((w) => (
              <li key={w.section}>
                <Link href={w.section}>{w.says}</Link>
              </li>
            ))}
          </ul>
        )}
      </section>
      {/* Once the counts are in: the list above grows then, and would push this panel down under a finger or a pointer. */}
      {SECTIONS.length > 0 && waiting !== null ? (
        <nav aria-labelledby="everything" class="panel">
          <h2 id="everything">Everything here</h2>
          <ul>
            {SECTIONS.map((section) => (
              <li key={section.path}>
                <Link href={section.path}>{section.label}</Link>
              </li>
            ))}
          </ul>
        </nav>
      ) : null}
    </>
  );
}
