// Tells the widget which doc the reader is on after every client-side navigation.
export function onRouteDidUpdate({ location }) {
  if (typeof window === 'undefined') return;
  const docClass = Array.from(document.documentElement.classList).find((name) => name.startsWith('docs-doc-id-'));
  window.Lectern?.setPage({
    lessonId: docClass ? docClass.slice('docs-doc-id-'.length) : undefined,
    permalink: location.pathname,
    title: document.title,
  });
}
