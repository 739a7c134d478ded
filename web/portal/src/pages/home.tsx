import { useSignedIn } from '../signed-in.js';
import { useNames } from '../names.js';
import { Link } from '../router.js';
import { sectionsFor } from '../sections.js';
import { LoadFailed, Loading, PageHeading } from '../ui.js';

/**
 * The signed-in person's first page: a greeting, whose clients a member of staff sees, and what waits for the person
 * in each section, linked.
 */
export function HomePage() {
  const signedIn = useSignedIn();
  const { person, workspace, waiting, uncounted, recount } = signedIn;
  const sections = sectionsFor(signedIn);
  const due = (waiting ?? []).filter((w) => w.count > 0);
  return (
    <>
      <PageHeading title="Home" context={workspace.name} />
      <p>Welcome, {person.givenName || person.email}.</p>
      <StaffScope />
      <section aria-labelledby="waiting" class="panel">
        <h2 id="waiting">What needs you</h2>
        {waiting === null ? (
          <Loading>Looking…</Loading>
        ) : due.length === 0 && uncounted.length === 0 ? (
          <p>Nothing needs you right now.</p>
        ) : due.length > 0 ? (
          <ul class="waiting">
            {due.map((w) => (
              <li key={w.section}>
                <Link href={w.section}>{w.says}</Link>
              </li>
            ))}
          </ul>
        ) : null}
        {waiting !== null && uncounted.length > 0 ? (
          <LoadFailed error={new Error(`What waits in ${listed(uncounted)} could not be counted just now.`)} retry={recount} />
        ) : null}
      </section>
      {/* Once the counts are in: the list above grows then, and would push this panel down under a finger or a pointer. */}
      {sections.length > 0 && waiting !== null ? (
        <nav aria-labelledby="everything" class="panel">
          <h2 id="everything">Everything here</h2>
          <ul>
            {sections.map((section) => (
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

/** "Messages", "Messages and Tasks", "Messages, Tasks and Forms". */
const listed = (words: string[]) => (words.length < 2 ? words.join('') : `${words.slice(0, -1).join(', ')} and ${words.at(-1)}`);

/** Whose things a member of staff sees here: every company's, or those of the companies it is limited to (by name). */
function StaffScope() {
  const { person, staff } = useSignedIn();
  const companies = staff?.companyIds ?? [];
  const name = useNames(
    person,
    companies.map((id) => ['company', id]),
  );
  if (!staff) return null;
  if (staff.companyIds === null) return <p>You see the clients of every company, and their messages, files, billing and work.</p>;
  const named = companies.map((id) => name('company', id));
  if (named.some((n) => n === undefined)) return <p class="hint">Finding the companies you see…</p>;
  const known = named.filter((n): n is string => Boolean(n));
  return (
    <p>
      You see the clients of {known.length > 0 ? listed(known) : 'no company here now'} only, and their messages, files, billing and work.
    </p>
  );
}
