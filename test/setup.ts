// Runs in every test file before its tests: each test gets a scope that owns the processes it
// starts and the checks to run at its end (test/scope.ts).
import { installScopes } from './scope.js';

installScopes();
