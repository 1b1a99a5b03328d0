// Building the page without ever parsing data as HTML: every element is made
// with createElement and every text set with textContent, so an appVersion
// of "<img onerror=…>" posted with the public ingest key stays inert text.

/**
 * An element with attributes and children. Attribute values are set with
 * setAttribute (never as HTML); children are elements, or strings and
 * numbers that become text nodes. `null`, `undefined` and `false` children
 * are skipped, so a child can be conditional.
 */
export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === null || value === undefined || value === false) continue;
    if (name.startsWith('on') && typeof value === 'function') {
      element.addEventListener(name.slice(2), value);
    } else if (value === true) {
      element.setAttribute(name, '');
    } else {
      element.setAttribute(name, String(value));
    }
  }
  append(element, children);
  return element;
}

/** Appends children as `h` takes them: nested arrays are flattened. */
export function append(parent, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    parent.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Replaces everything inside `parent` with `children`. */
export function replaceChildren(parent, ...children) {
  parent.replaceChildren();
  append(parent, children);
}

/**
 * A table of `rows`. Each column is `{label, cell(row), numeric, title}`;
 * `cell` returns text or an element. Numeric columns are right-aligned.
 */
export function table(caption, columns, rows, attributes = {}) {
  return h(
    'div',
    { class: 'table-scroll', tabindex: '0', role: 'region', 'aria-label': caption },
    h(
      'table',
      attributes,
      h('caption', {}, caption),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          columns.map((column) =>
            h('th', { scope: 'col', class: column.numeric ? 'num' : null, title: column.title }, column.label),
          ),
        ),
      ),
      h(
        'tbody',
        {},
        rows.map((row) =>
          h(
            'tr',
            {},
            columns.map((column, index) =>
              h(index === 0 ? 'th' : 'td', {
                scope: index === 0 ? 'row' : null,
                class: column.numeric ? 'num' : null,
                'data-column': column.key,
              }, column.cell(row)),
            ),
          ),
        ),
      ),
    ),
  );
}

/** A message in place of a view's content: loading, empty or an error. */
export function notice(kind, text) {
  const roles = { loading: 'status', empty: 'status', error: 'alert' };
  return h('p', { class: `notice notice-${kind}`, role: roles[kind], 'data-notice': kind }, text);
}
