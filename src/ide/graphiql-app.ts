/**
 * The browser script of /graphiql, served as a file (the page's CSP allows no inline script). It
 * runs GraphiQL's standalone bundle with the tenant and token typed into the form as headers.
 */
export const GRAPHIQL_APP = `'use strict';
(function () {
  var form = document.getElementById('credentials');
  var root = ReactDOM.createRoot(document.getElementById('graphiql'));
  var fetcher = GraphiQL.createFetcher({ url: location.origin + '/graphql' });
  var generation = 0;
  var example = '# Fill in the tenant and a token above, then run this with the play button.\\n' +
    'query Institutions {\\n  institutions(first: 5) {\\n    totalCount\\n    nodes { uuid name }\\n  }\\n}\\n';
  function show() {
    var headers = { Authorization: 'Bearer ' + (form.token.value.trim() || '<token>'), 'X-Tenant': form.tenant.value.trim() || '<tenant>' };
    root.render(React.createElement(GraphiQL, {
      key: ++generation,
      fetcher: fetcher,
      defaultQuery: example,
      headers: JSON.stringify(headers, null, 2),
      shouldPersistHeaders: false,
      defaultEditorToolsVisibility: 'headers'
    }));
  }
  form.addEventListener('submit', function (event) {
    event.preventDefault();
    show();
  });
  show();
})();
`;
