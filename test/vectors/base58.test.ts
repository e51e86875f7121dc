import { testSuite } from '../support/suite-test.js';
import { suite } from './suites/base58.js';

testSuite(suite);
