import { type FunctionComponent, render } from 'preact';

/** Renders the front end's App in place of index.html's #app (and its <noscript> message). */
export function mount(App: FunctionComponent) {
  const root = document.getElementById('app');
  if (root) {
    root.replaceChildren();
    render(<App />, root);
  }
}
