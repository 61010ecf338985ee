// A stdio MCP server for the benchmark, written with the SDK: twenty tools shaped like a GitHub
// server's (names, descriptions of a few sentences, schemas with several typed arguments), each
// answering at once. `node bench/mcp-server.mjs` serves them; importing it gives TOOLS.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const str = (description) => ({ type: 'string', description });
const num = (description) => ({ type: 'number', description });
const repo = { owner: str('Repository owner (user or organization)'), repo: str('Repository name') };
const page = { page: num('Page number for pagination (min 1)'), perPage: num('Results per page for pagination (min 1, max 100)') };
const tool = (name, description, properties, required) => ({ name, description, inputSchema: { type: 'object', properties, required, additionalProperties: false } });

export const TOOLS = [
  tool('get_issue', 'Get details of a specific issue in a GitHub repository. Returns the title, body, state, labels and assignees.', { ...repo, issue_number: num('The number of the issue') }, ['owner', 'repo', 'issue_number']),
  tool('list_issues', 'List issues in a GitHub repository with filtering options. Pull requests are included unless filtered out.', { ...repo, state: { type: 'string', enum: ['open', 'closed', 'all'] }, labels: { type: 'array', items: { type: 'string' } }, sort: { type: 'string', enum: ['created', 'updated', 'comments'] }, ...page }, ['owner', 'repo']),
  tool('create_issue', 'Create a new issue in a GitHub repository.', { ...repo, title: str('Issue title'), body: str('Issue body content'), assignees: { type: 'array', items: { type: 'string' } }, labels: { type: 'array', items: { type: 'string' } } }, ['owner', 'repo', 'title']),
  tool('update_issue', 'Update an existing issue in a GitHub repository: title, body, state, labels or assignees.', { ...repo, issue_number: num('Issue number to update'), title: str('New title'), body: str('New description'), state: { type: 'string', enum: ['open', 'closed'] } }, ['owner', 'repo', 'issue_number']),
  tool('add_issue_comment', 'Add a comment to a specific issue in a GitHub repository.', { ...repo, issue_number: num('Issue number to comment on'), body: str('Comment content') }, ['owner', 'repo', 'issue_number', 'body']),
  tool('search_issues', 'Search for issues and pull requests across GitHub repositories using GitHub search syntax.', { q: str('Search query using GitHub issues search syntax'), sort: str('Sort field'), order: { type: 'string', enum: ['asc', 'desc'] }, ...page }, ['q']),
  tool('get_pull_request', 'Get details of a specific pull request: title, body, state, branches, mergeability.', { ...repo, pullNumber: num('Pull request number') }, ['owner', 'repo', 'pullNumber']),
  tool('list_pull_requests', 'List pull requests in a GitHub repository.', { ...repo, state: { type: 'string', enum: ['open', 'closed', 'all'] }, head: str('Filter by head user/org and branch'), base: str('Filter by base branch'), ...page }, ['owner', 'repo']),
  tool('create_pull_request', 'Create a new pull request in a GitHub repository.', { ...repo, title: str('PR title'), body: str('PR description'), head: str('Branch containing changes'), base: str('Branch to merge into'), draft: { type: 'boolean' } }, ['owner', 'repo', 'title', 'head', 'base']),
  tool('merge_pull_request', 'Merge a pull request in a GitHub repository.', { ...repo, pullNumber: num('Pull request number'), merge_method: { type: 'string', enum: ['merge', 'squash', 'rebase'] }, commit_title: str('Title for merge commit') }, ['owner', 'repo', 'pullNumber']),
  tool('get_pull_request_files', 'Get the files changed in a specific pull request, with their patches.', { ...repo, pullNumber: num('Pull request number') }, ['owner', 'repo', 'pullNumber']),
  tool('create_pull_request_review', 'Create a review on a pull request: approve, request changes or comment.', { ...repo, pullNumber: num('Pull request number'), body: str('Review comment text'), event: { type: 'string', enum: ['APPROVE', 'REQUEST_CHANGES', 'COMMENT'] } }, ['owner', 'repo', 'pullNumber', 'event']),
  tool('get_file_contents', 'Get the contents of a file or directory from a GitHub repository.', { ...repo, path: str('Path to file/directory'), branch: str('Branch to get contents from') }, ['owner', 'repo', 'path']),
  tool('create_or_update_file', 'Create or update a single file in a GitHub repository. The SHA of the file being replaced is required for updates.', { ...repo, path: str('Path where to create/update the file'), content: str('Content of the file'), message: str('Commit message'), branch: str('Branch to create/update the file in'), sha: str('SHA of file being replaced') }, ['owner', 'repo', 'path', 'content', 'message', 'branch']),
  tool('push_files', 'Push multiple files to a GitHub repository in a single commit.', { ...repo, branch: str('Branch to push to'), files: { type: 'array', items: { type: 'object', properties: { path: { type: 'string' }, content: { type: 'string' } }, required: ['path', 'content'] } }, message: str('Commit message') }, ['owner', 'repo', 'branch', 'files', 'message']),
  tool('create_branch', 'Create a new branch in a GitHub repository.', { ...repo, branch: str('Name for new branch'), from_branch: str('Source branch (defaults to repo default)') }, ['owner', 'repo', 'branch']),
  tool('list_commits', 'Get the list of commits of a branch in a GitHub repository.', { ...repo, sha: str('SHA or branch name'), ...page }, ['owner', 'repo']),
  tool('search_code', 'Search for code across GitHub repositories using GitHub code search syntax.', { q: str('Search query using GitHub code search syntax'), sort: str('Sort field'), order: { type: 'string', enum: ['asc', 'desc'] }, ...page }, ['q']),
  tool('search_repositories', 'Search for GitHub repositories.', { query: str('Search query'), ...page }, ['query']),
  tool('fork_repository', 'Fork a GitHub repository to your account or a specified organization.', { ...repo, organization: str('Organization to fork to') }, ['owner', 'repo']),
];

if (process.argv[1] === new URL(import.meta.url).pathname) {
  const server = new Server({ name: 'bench-github', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: TOOLS }));
  server.setRequestHandler(CallToolRequestSchema, async (req) => ({ content: [{ type: 'text', text: `${req.params.name}: ok` }] }));
  await server.connect(new StdioServerTransport());
}
