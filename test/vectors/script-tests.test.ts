import { testSuite } from '../support/suite-test.js';
import { suite } from './suites/script-tests.js';

testSuite(suite);
