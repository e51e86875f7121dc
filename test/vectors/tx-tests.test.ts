import { testSuite } from '../support/suite-test.js';
import { suites } from './suites/tx-tests.js';

for (const s of suites) testSuite(s);
