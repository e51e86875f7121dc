import { testSuite } from '../support/suite-test.js';
import { suites } from './suites/key-io.js';

for (const suite of suites) testSuite(suite);
