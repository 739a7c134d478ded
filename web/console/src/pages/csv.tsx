import { useState } from 'preact/hooks';
import { download, path, uploadCsv } from '../api.js';
import type { ImportResult } from '../types.js';
import { ErrorMessage, Field, PageHeading, Status, formatNumber, useAction } from '../ui.js';
import { useWorkspaceName } from '../workspace-layout.js';

export function CsvPage({ workspaceId }: { workspaceId: string }) {
  const [progress, setProgress] = useState<number | null>(null);
  const [result, setResult] = useState<ImportResult | null>(null);
  const upload = useAction();
  const exporting = useAction();

  const submit = async (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const file = (form.elements.namedItem('file') as HTMLInputElement).files?.[0];
    if (!file) return;
    setResult(null);
    setProgress(0);
    await upload.run(async () => {
      const answer = await uploadCsv<ImportResult>(path`/workspaces/${workspaceId}/imports/clients`, file, setProgress);
      setResult(answer);
      form.reset();
      return `Import of ${file.name} finished: ${answer.created} created, ${answer.skipped} skipped, ${answer.errors.length} ${answer.errors.length === 1 ? 'error' : 'errors'}.`;
    });
  };

  const exportClients = () =>
    void exporting.run(async () => {
      const name = await download(path`/workspaces/${workspaceId}/exports/clients`, 'clients.csv');
      return `Exported: ${name}.`;
    });

  const percent = progress === null ? 0 : Math.round(progress * 100);
  return (
    <>
      <PageHeading title="Import & export clients" context={useWorkspaceName()} />
      <section class="panel" aria-labelledby="import">
        <h2 id="import">Import clients from CSV</h2>
        <p>
          A header row naming the columns — <code>email</code>, <code>givenName</code>, <code>familyName</code>, optionally{' '}
          <code>company</code> (a company's name) and the key of any client custom field, as the export writes them — then one client a
          line.
        </p>
        <ErrorMessage error={upload.error} />
        <form class="inline-form" onSubmit={submit}>
          <Field label="CSV file" class="wide">
            {(props) => <input {...props} name="file" type="file" accept=".csv,text/csv" required />}
          </Field>
          <div class="actions">
            <button type="submit" disabled={upload.busy}>
              {upload.busy ? 'Importing…' : 'Import'}
            </button>
          </div>
        </form>
        {progress !== null ? (
          <div class="progress">
            <label for="upload-progress">
              {upload.busy && progress >= 1 ? 'Uploaded; the server is importing…' : `Upload ${percent}%`}
            </label>
            <progress id="upload-progress" max={100} value={percent}>
              {percent}%
            </progress>
          </div>
        ) : null}
        <Status>{upload.done}</Status>
        {result ? <ImportSummary result={result} /> : null}
      </section>

      <section class="panel" aria-labelledby="export">
        <h2 id="export">Export clients to CSV</h2>
        <p>Every client of the workspace, one a line.</p>
        <ErrorMessage error={exporting.error} />
        <button type="button" onClick={exportClients} disabled={exporting.busy}>
          {exporting.busy ? 'Preparing…' : 'Download clients.csv'}
        </button>
        <Status>{exporting.done}</Status>
      </section>
    </>
  );
}

function ImportSummary({ result }: { result: ImportResult }) {
  return (
    <div class="import-result">
      <dl class="counts">
        <div>
          <dt>Created</dt>
          <dd>{formatNumber(result.created)}</dd>
        </div>
        <div>
          <dt>Skipped</dt>
          <dd>{formatNumber(result.skipped)}</dd>
        </div>
        <div>
          <dt>Errors</dt>
          <dd>{formatNumber(result.errors.length)}</dd>
        </div>
      </dl>
      {result.errors.length > 0 ? (
        <table class="data">
          <caption>Lines not imported</caption>
          <thead>
            <tr>
              <th scope="col">Line</th>
              <th scope="col">Problem</th>
            </tr>
          </thead>
          <tbody>
            {result.errors.map((problem) => (
              <tr key={`${problem.line}-${problem.message}`}>
                <td data-label="Line">{problem.line}</td>
                <td data-label="Problem">{problem.message}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {result.truncatedErrors ? <p class="hint">More lines failed than are listed here.</p> : null}
    </div>
  );
}
